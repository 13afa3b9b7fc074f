// The text of a PDF (a page printed by Chromium's page.pdf), for e2e checks of what a printed report holds.
// pdf.js's Node build reads the ToUnicode maps Chromium writes, so Japanese text comes back as text.

/** Every page's text items joined by spaces, pages by newlines. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js wants a plain Uint8Array (page.pdf gives a Buffer).
  const data = new Uint8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const doc = await pdfjs.getDocument({ data, useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(content.items.map((it) => ('str' in it ? it.str : '')).join(' '));
  }
  await doc.destroy();
  return pages.join('\n');
}
