import { rejectedApiError, thrownApiError } from '@stamp/testkit/api-error.ts';

import { importContact, parseContactsCsv, parseSubscribed, readHeader } from './csv.ts';
import { sampleContactsCsv } from './sample-csv.ts';

const csv = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('CSV reading of contact imports', () => {
  it('reads quoted fields, UTF-8, a BOM, CRLF and line breaks inside quotes, with start lines', async () => {
    const parsed = await parseContactsCsv(
      csv(
        '\ufeffEmail , Name,Notes\r\n' +
          'zoe@example.io,"Zoë, the ""great""",\r\n' +
          '\r\n' +
          'jose@example.io,José,"two\nlines"\r\n' +
          '  wang@example.io  ,王小明,plain\r\n',
      ),
    );
    expect(parsed.columns).toEqual(['Email', 'Name', 'Notes']);
    expect(parsed.rows).toEqual([
      { line: 2, values: ['zoe@example.io', 'Zoë, the "great"', ''] },
      { line: 4, values: ['jose@example.io', 'José', 'two\nlines'] },
      { line: 6, values: ['wang@example.io', '王小明', 'plain'] },
    ]);
  });

  it('turns a wrong column count and an unclosed quote into error rows, keeping the others', async () => {
    const parsed = await parseContactsCsv(
      csv(
        'email,name\n' +
          'a@example.io,Ann,extra\n' +
          'b@example.io\n' +
          'c@example.io,"stray"quote\n' +
          '   ,  \n' +
          'd@example.io,Dee\n' +
          'e@example.io,"never closed\n' +
          'f@example.io,Eff\n',
      ),
    );
    expect(parsed.rows).toEqual([
      { line: 2, error: 'Expected 2 columns, found 3' },
      { line: 3, error: 'Expected 2 columns, found 1' },
      { line: 4, values: ['c@example.io', '"stray"quote'] },
      { line: 6, values: ['d@example.io', 'Dee'] },
      {
        line: 7,
        error: 'Unclosed quoted field: the rest of the file from this line could not be read',
      },
    ]);
  });

  it('finds a semicolon or tab delimiter from the header line', async () => {
    expect((await parseContactsCsv(csv('email;name\na@example.io;"Doe, Ann"\n'))).rows).toEqual([
      { line: 2, values: ['a@example.io', 'Doe, Ann'] },
    ]);
    expect((await parseContactsCsv(csv('email\tname\na@example.io\tAnn\n'))).rows).toEqual([
      { line: 2, values: ['a@example.io', 'Ann'] },
    ]);
  });

  it('refuses files without rows or without an email column with 422 on field file', async () => {
    for (const [text, message] of [
      ['', 'empty'],
      ['\r\n\r\n', 'empty'],
      ['email,name\r\n', 'no rows'],
      ['email,name\n , \n', 'no rows'],
      ['name,company\nAnn,Acme\n', 'no "email" column'],
      ['email,name,Name,name\na,b,c,d\n', 'appears more than once'],
    ] as const) {
      const error = await rejectedApiError(parseContactsCsv(csv(text)));
      expect([error.status, error.code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(error.options.errors?.[0]).toMatchObject({ field: 'file' });
      expect(error.options.errors?.map((issue) => issue.message).join(' ')).toContain(message);
    }
  });

  it('maps email and subscribed case-insensitively and the other named columns to data', () => {
    expect(readHeader(['E-mail', 'EMAIL', '', 'Subscribed', 'plan'])).toEqual({
      emailIndex: 1,
      subscribedIndex: 3,
      data: [
        ['E-mail', 0],
        ['plan', 4],
      ],
    });
    const tooMany = Array.from({ length: 101 }, (_, index) => `k${index}`);
    expect(thrownApiError(() => readHeader(['email', ...tooMany])).status).toBe(422);
    expect(thrownApiError(() => readHeader(['email', 'x'.repeat(256)])).status).toBe(422);
  });

  it('reads a row as a contact or as the reason it cannot be imported', () => {
    const header = readHeader(['email', 'subscribed', 'plan', 'city']);
    expect(importContact(header, ['a@example.io', 'No', 'pro', ''])).toEqual({
      email: 'a@example.io',
      subscribed: false,
      data: { plan: 'pro' },
    });
    expect(importContact(header, ['a@example.io', '', '', ''])).toEqual({
      email: 'a@example.io',
      subscribed: undefined,
      data: {},
    });
    expect(importContact(header, ['', 'true', 'pro', ''])).toEqual({ error: 'Missing email' });
    expect(importContact(header, ['a@example.io', 'maybe', '', ''])).toEqual({
      email: 'a@example.io',
      error: 'Invalid subscribed value "maybe" (use true or false)',
    });
    expect([parseSubscribed('YES'), parseSubscribed('0'), parseSubscribed(' ')]).toEqual([
      true,
      false,
      undefined,
    ]);
    expect(parseSubscribed('2')).toBeNull();
  });

  it('reads the 5 MB sample file with the expected rows and error lines', async () => {
    const sample = sampleContactsCsv();
    expect(sample.content.length).toBeLessThanOrEqual(5 * 1024 * 1024);
    const parsed = await parseContactsCsv(sample.content);
    expect(parsed.rows).toHaveLength(sample.rows);
    const unreadable = parsed.rows.filter((row) => 'error' in row).map((row) => row.line);
    expect(unreadable).toEqual(
      sample.errors.filter((error) => error.reason === 'columns').map((error) => error.line),
    );
    const row3 = parsed.rows[3];
    expect(row3).toEqual({
      line: 5,
      values: ['p3@example.io', '王小明', 'Acme, Inc.', 'first line\nsecond, line', 'true'],
    });
    expect(parsed.rows[4]?.line).toBe(7);
  });
});
