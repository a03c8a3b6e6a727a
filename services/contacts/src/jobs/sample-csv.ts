/**
 * A deterministic contacts CSV for import tests and benchmarks: UTF-8 names, quoted fields with
 * commas, embedded quotes and a line break, a repeated email and a few broken rows, with the
 * counts and row errors an import of it must give.
 */

/** Header of {@link sampleContactsCsv} files. */
export const SAMPLE_COLUMNS = ['email', 'name', 'company', 'notes', 'subscribed'] as const;

const NAMES = [
  'Zoë Keller',
  'José Núñez',
  'Łukasz Żak',
  '王小明',
  'Ana María, Jr.',
  'Søren "Sunny" Ås',
  'Nguyễn Văn An',
  'Ólafur',
];
const COMPANIES = ['Acme, Inc.', 'Widgets "R" Us', 'Globex'];
const SUBSCRIBED = ['true', 'false', ''];

/** A generated file and what importing it into an empty project must give. */
export interface SampleCsv {
  content: Buffer;
  /** Data records (the header excluded). */
  rows: number;
  /** Import result counters. */
  expected: { created: number; updated: number; unchanged: number; failed: number };
  /** The row errors, by line, with a word their reason contains. */
  errors: { line: number; email?: string; reason: string }[];
  /** A few good rows and the contact each must give. */
  samples: {
    email: string;
    subscribed: boolean;
    data: Record<string, string>;
  }[];
}

/** The CSV form of one field: quoted (quotes doubled) when it holds `,`, `"` or a line break. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Generates `rows` records (default 100,000; about 5 MB at the default, under 5,242,880 bytes)
 * for project-unique emails `p<n>@<domain>`. Row 3 has a line break inside its quoted notes;
 * row 60,000 (or the middle row of smaller files) repeats the email of row 100 (of row 1) with
 * another company; rows at fixed places are broken: an invalid email, an extra column, an
 * invalid `subscribed` value, a missing email. Lines end with CRLF.
 */
export function sampleContactsCsv(options: { rows?: number; domain?: string } = {}): SampleCsv {
  const rows = options.rows ?? 100_000;
  const domain = options.domain ?? 'example.io';
  const brokenAt = new Map<number, 'email' | 'columns' | 'subscribed' | 'missing'>();
  const kinds = ['email', 'columns', 'subscribed', 'missing'] as const;
  [7, 777, 12_345, 33_333, 50_001, 77_777, 88_888, 99_990]
    .filter((index) => index < rows)
    .forEach((index, order) => brokenAt.set(index, kinds[order % kinds.length] ?? 'email'));
  const repeatOf = rows > 60_000 ? 100 : 1;
  const repeatAt = rows > 60_000 ? 60_000 : Math.floor(rows / 2);

  const lines: string[] = [SAMPLE_COLUMNS.join(',')];
  const result: SampleCsv = {
    content: Buffer.alloc(0),
    rows,
    expected: { created: 0, updated: 0, unchanged: 0, failed: 0 },
    errors: [],
    samples: [],
  };
  let line = 2;
  for (let index = 0; index < rows; index++) {
    const email = `p${index === repeatAt ? repeatOf : index}@${domain}`;
    const name = NAMES[index % NAMES.length] ?? '';
    const company = COMPANIES[(index + (index === repeatAt ? 1 : 0)) % COMPANIES.length] ?? '';
    const notes =
      index === 3 ? 'first line\nsecond, line' : index % 25 === 0 ? `tier ${index}` : '';
    const subscribed = SUBSCRIBED[index % SUBSCRIBED.length] ?? '';
    const cells = [email, name, company, notes, subscribed];
    const broken = brokenAt.get(index);
    if (broken === 'email') {
      cells[0] = `not-an-email-${index}`;
      result.errors.push({ line, email: cells[0], reason: 'Invalid email' });
    } else if (broken === 'columns') {
      cells.push('extra');
      result.errors.push({ line, reason: 'columns' });
    } else if (broken === 'subscribed') {
      cells[4] = 'maybe';
      result.errors.push({ line, email, reason: 'subscribed' });
    } else if (broken === 'missing') {
      cells[0] = '';
      result.errors.push({ line, reason: 'Missing email' });
    }
    lines.push(cells.map(field).join(','));
    line += index === 3 ? 2 : 1;
    if (broken !== undefined) result.expected.failed++;
    else if (index === repeatAt) result.expected.updated++;
    else result.expected.created++;
    if (broken === undefined && (index === 3 || index === 4 || index === 5 || index === 26)) {
      const data: Record<string, string> = { name, company };
      if (notes !== '') data.notes = notes;
      result.samples.push({ email, subscribed: subscribed !== 'false', data });
    }
  }
  result.content = Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
  return result;
}
