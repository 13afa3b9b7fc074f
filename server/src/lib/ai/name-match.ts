/**
 * Name-match rate of spec §3/§4 ("AI name match", tolerance `ai_namematch` 1–100), computed as in
 * ai-feasibility.md §4: normalise (NFKC, upper case, no spaces or `・,.-`; Japanese OCR inserts spaces), slide
 * windows of |name| ± 2 over the OCR text, rate = round(100 × (1 − Levenshtein / longer length)), 1–100.
 */
export function nameMatchRate(expectedName: string, ocrText: string): number {
  // Cards differ in name order: Japanese cards and passports print the family name first ("COLLINS
  // EILEEN"), a registration may hold either order. Every rotation of the registered words is tried.
  const words = expectedName
    .trim()
    .split(/[\s,]+/u)
    .filter(Boolean);
  const orders = words.map((_, i) => [...words.slice(i), ...words.slice(0, i)].join(' '));
  return Math.max(1, ...(orders.length ? orders : [expectedName]).map((n) => rateOf(n, ocrText)));
}

function rateOf(expectedName: string, ocrText: string): number {
  const name = normalise(expectedName);
  if (!name) return 1;
  const lines = ocrText.split(/\r?\n/).map(normalise).filter(Boolean);
  let best = 0;
  for (const text of lines.length ? lines : [normalise(ocrText)]) {
    for (let len = Math.max(1, name.length - 2); len <= name.length + 2; len++) {
      if (text.length <= len) {
        best = Math.max(best, similarity(name, text));
        continue;
      }
      for (let i = 0; i + len <= text.length; i++)
        best = Math.max(best, similarity(name, text.slice(i, i + len)));
    }
  }
  return Math.min(100, Math.max(1, Math.round(best * 100)));
}

/** NFKC, upper case, separators removed. */
export function normalise(s: string): string {
  return s
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s・,.\-‐－_]/gu, '');
}

function similarity(a: string, b: string): number {
  const max = Math.max(a.length, b.length);
  return max ? 1 - levenshtein(a, b) / max : 0;
}

/** Edit distance on code points. */
export function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/** Whether a name is written in Japanese script (kana or CJK ideographs), i.e. needs the `jpn` OCR model. */
export function isJapaneseName(name: string): boolean {
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(name);
}
