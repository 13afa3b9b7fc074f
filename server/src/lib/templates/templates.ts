import type {
  TemplateAdminRow,
  TemplateKind,
  TemplateListResult,
  TemplateQuery,
  TemplateResult,
} from '../../../../contract/templates';
import type { Db } from '../../db/db';
import { notFound } from '../api-error';
import { sqlWireTime, toWireTime } from '../management-time';

interface TemplateRow {
  template_id: number;
  title: string;
  body: string;
  footer_url: string;
  lang: string;
  updated_at: Date | string;
}

/** The template used when the start-up parameters carry -1 or nothing (spec §3 defaults). */
const DEFAULT_TEMPLATE_ID = 0;
const FALLBACK_LANG = 'ja';

/** spec §1: the interface is ja or en; zn (and anything unknown) maps to Japanese. */
export function templateLang(lang: string | undefined): string {
  const l = (lang ?? '').trim().toLowerCase();
  return l === 'en' ? 'en' : FALLBACK_LANG;
}

const iso = (v: Date | string): string => toWireTime(v)!;

/**
 * The template of a kind a start-up asks for (`template_id` -1 or none: the default one), in the asked
 * language, else in Japanese; 404 when there is none.
 */
export async function findTemplate(db: Db, kind: TemplateKind, q: TemplateQuery): Promise<TemplateResult> {
  const raw = q.template_id === undefined ? -1 : Number(q.template_id);
  const id = raw === -1 ? DEFAULT_TEMPLATE_ID : raw;
  const lang = templateLang(q.lang);
  const { rows } = await db.query<TemplateRow>(
    `SELECT template_id, title, body, footer_url, lang, updated_at FROM templates
      WHERE kind = $1 AND template_id = $2 AND lang IN ($3, $4)
      ORDER BY (lang = $3) DESC LIMIT 1`,
    [kind, id, lang, FALLBACK_LANG],
  );
  const row = rows[0];
  if (!row) throw notFound(`No such template: ${kind} ${id}.`);
  return {
    template_id: row.template_id,
    title: row.title,
    template_body: row.body,
    template_footer_url: row.footer_url,
    updated_at: iso(row.updated_at),
  };
}

/** The templates of a kind (ids, titles, languages; no bodies), in one language or all (`lang` null). */
export async function listTemplateTitles(
  db: Db,
  kind: TemplateKind,
  lang: string | null,
): Promise<TemplateListResult['list']> {
  const { rows } = await db.query<TemplateRow>(
    `SELECT template_id, title, lang, updated_at, '' AS body, '' AS footer_url FROM templates
      WHERE kind = $1 AND ($2::text IS NULL OR lang = $2)
      ORDER BY template_id, lang`,
    [kind, lang],
  );
  return rows.map((r) => ({
    template_id: r.template_id,
    title: r.title,
    lang: r.lang,
    updated_at: iso(r.updated_at),
  }));
}

const ADMIN_COLUMNS = `kind, template_id::int AS template_id, lang, title, body, footer_url,
  ${sqlWireTime('updated_at')} AS updated_at`;

/** Every template with its body, for the editing page. */
export async function listTemplatesForAdmin(db: Db): Promise<TemplateAdminRow[]> {
  const { rows } = await db.query<TemplateAdminRow>(
    `SELECT ${ADMIN_COLUMNS} FROM templates ORDER BY kind, template_id, lang`,
  );
  return rows;
}

/** Creates or replaces one template (kind, id, language); the body must be sanitised already. */
export async function saveTemplate(
  db: Db,
  t: {
    kind: TemplateKind;
    templateId: number;
    lang: string;
    title: string;
    body: string;
    footerUrl: string;
  },
): Promise<TemplateAdminRow> {
  const { rows } = await db.query<TemplateAdminRow>(
    `INSERT INTO templates (kind, template_id, lang, title, body, footer_url, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (kind, template_id, lang)
     DO UPDATE SET title = EXCLUDED.title, body = EXCLUDED.body, footer_url = EXCLUDED.footer_url,
                   updated_at = now()
     RETURNING ${ADMIN_COLUMNS}`,
    [t.kind, t.templateId, t.lang, t.title, t.body, t.footerUrl],
  );
  return rows[0]!;
}
