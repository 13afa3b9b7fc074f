import { CSV_BOM, csvCell, csvRow, csvStream } from '../src/lib/csv';

describe('csvCell: RFC 4180 quoting and the formula guard (ASVS 5.0 V1.2.10)', () => {
  it.each([
    [`=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`],
    ['=1+2', `'=1+2`],
    ['+1', `'+1`],
    ['-1', `'-1`],
    ['@SUM(A1:A9)', `'@SUM(A1:A9)`],
    ['\tTAB', `'\tTAB`],
    ['\rCR', `"'\rCR"`],
    ['\0NUL', `'\0NUL`],
    ['say "hi"', `"say ""hi"""`],
    ['a,b', `"a,b"`],
    ['line1\nline2', `"line1\nline2"`],
    ['line1\r\nline2', `"line1\r\nline2"`],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['山田 太郎', '山田 太郎'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('writes numbers, booleans and empty values plainly', () => {
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(true)).toBe('1');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('ends a row in CRLF', () => {
    expect(csvRow(['a', 1, null, '+x'])).toBe(`a,1,,'+x\r\n`);
  });
});

describe('csvStream', () => {
  it('starts with the BOM and the header, then the batches', async () => {
    async function* batches() {
      yield [{ a: 'x', b: 1 }];
      yield [];
      yield [
        { a: '=y', b: 2 },
        { a: 'z,z', b: 3 },
      ];
    }
    const chunks: Buffer[] = [];
    for await (const c of csvStream(['A', 'B'], batches(), (r) => [r.a, r.b]))
      chunks.push(Buffer.from(c as Buffer));
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toBe(`${CSV_BOM}A,B\r\nx,1\r\n'=y,2\r\n"z,z",3\r\n`);
    expect([...Buffer.concat(chunks).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('pulls batches only as the reader consumes them (backpressure)', async () => {
    let pulled = 0;
    async function* batches() {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield [{ v: 'x'.repeat(1024) }];
      }
    }
    const stream = csvStream(['V'], batches(), (r) => [r.v]);
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    await new Promise((r) => setTimeout(r, 20));
    // A 64 KiB buffer holds about 64 rows of 1 KiB; far fewer than the 1000 available were generated.
    expect(pulled).toBeLessThan(200);
    stream.destroy();
  });
});
