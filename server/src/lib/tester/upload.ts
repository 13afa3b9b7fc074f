import type { FastifyRequest } from 'fastify';
import { IMAGE_CONTENT_TYPES, IMAGE_MAX_BYTES } from '../../../../contract/tester';
import { ApiError } from '../api-error';

/**
 * Body limit for routes that take a JSON base64 image: a IMAGE_MAX_BYTES image plus base64 overhead and the
 * other fields. A bigger body is refused by Fastify with 413 before it is parsed.
 */
export const IMAGE_JSON_BODY_LIMIT = Math.ceil((IMAGE_MAX_BYTES * 4) / 3) + 64 * 1024;

const uploaded = new WeakMap<FastifyRequest, Buffer>();
const BASE64_RE = /^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/;

/**
 * preValidation hook for image routes: a multipart/form-data request becomes an ordinary body (text fields
 * by name, validated and coerced by the route schema like JSON), and its file part `image` is kept aside for
 * {@link uploadedImage}. The file is limited to IMAGE_MAX_BYTES (413 beyond).
 */
export async function multipartToBody(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  // Do not read a multi-megabyte upload for a caller that cannot be logged in anyway.
  if (!request.headers.authorization)
    throw new ApiError(401, 'unauthorized', 'Login required, or the session has expired.');
  const body: Record<string, string> = {};
  for await (const part of request.parts({ limits: { fileSize: IMAGE_MAX_BYTES, files: 1, fields: 10 } })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'image')
        throw new ApiError(400, 'validation', `Unexpected file field '${part.fieldname}'.`);
      // The part's own Content-Type is not used: the bytes decide (validateImage sniffs them).
      uploaded.set(request, await part.toBuffer());
    } else {
      body[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  request.body = body;
}

/**
 * The image of a request: the multipart file part, or the JSON `image` field (base64, optionally a
 * `data:image/...;base64,` URL). Null when there is none. Size and type are checked by `validateImage`.
 */
export function uploadedImage(
  request: FastifyRequest,
  body: { image?: string | undefined; content_type?: string | undefined },
): Buffer | null {
  const declared = body.content_type?.split(';')[0]?.trim().toLowerCase();
  if (declared && !(IMAGE_CONTENT_TYPES as readonly string[]).includes(declared)) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      'content_type must be image/jpeg, image/png or image/webp.',
    );
  }
  const file = uploaded.get(request);
  if (file) return file;
  if (body.image === undefined || body.image === '') return null;
  let text = body.image;
  const m = /^data:([a-z0-9.+/-]+);base64,/i.exec(text);
  if (m) text = text.slice(m[0].length);
  if (!BASE64_RE.test(text)) throw new ApiError(400, 'validation', 'image must be base64 encoded.');
  if (Math.floor((text.length * 3) / 4) > IMAGE_MAX_BYTES + 3) {
    throw new ApiError(413, 'payload_too_large', `The image exceeds ${IMAGE_MAX_BYTES} bytes.`);
  }
  return Buffer.from(text, 'base64');
}

/** Like {@link uploadedImage} but 400 when the request carries no image. */
export function requireUploadedImage(
  request: FastifyRequest,
  body: { image?: string | undefined; content_type?: string | undefined },
): Buffer {
  const img = uploadedImage(request, body);
  if (!img) throw new ApiError(400, 'validation', 'image is required (a file part or base64 text).');
  return img;
}
