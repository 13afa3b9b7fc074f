import { useEffect, useState } from 'react';

/** Modules of white margin around the symbol (the quiet zone QR readers need). */
const QUIET_ZONE = 4;

/** The dark modules of a QR code as one SVG path, and the symbol's size with its quiet zone. */
async function qrPath(text: string): Promise<{ d: string; size: number }> {
  // Loaded with the first code shown: pages without a QR code never download the encoder.
  const { default: QRCode } = await import('qrcode');
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  let d = '';
  for (let row = 0; row < n; row++) {
    let col = 0;
    while (col < n) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      // One horizontal run of dark modules per path segment keeps the path short.
      const start = col;
      while (col < n && modules.get(row, col)) col++;
      d += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h${start - col}z`;
    }
  }
  return { d, size: n + 2 * QUIET_ZONE };
}

export interface QrCodeProps {
  /** What the code encodes. */
  text: string;
  /** What it is, for screen readers (the image's accessible name). */
  label: string;
  /** Rendered width and height in CSS pixels. */
  size?: number;
  testId?: string;
}

/** A QR code drawn as SVG (dark on white, crisp module edges), built in the browser from `text`. */
export function QrCode({ text, label, size = 240, testId }: QrCodeProps) {
  const [drawn, setDrawn] = useState<{ text: string; d: string; size: number } | null>(null);
  useEffect(() => {
    let live = true;
    void qrPath(text).then((p) => {
      if (live) setDrawn({ text, ...p });
    });
    return () => {
      live = false;
    };
  }, [text]);
  const ready = drawn?.text === text ? drawn : null;
  return (
    <svg
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${ready?.size ?? 1} ${ready?.size ?? 1}`}
      shapeRendering="crispEdges"
      data-testid={testId}
      data-ready={ready ? 'true' : 'false'}
      style={{ background: '#fff', display: 'block' }}
    >
      {ready && <path d={ready.d} fill="#000" />}
    </svg>
  );
}
