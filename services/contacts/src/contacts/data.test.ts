import { ApiError } from '@stamp/http-kit';

import { applyPatch, dataPatch, dataSchema, type DataPatch } from './data.ts';

describe('dataPatch (spec part 2 rules)', () => {
  const cases: [string, Parameters<typeof dataPatch>[0], DataPatch][] = [
    [
      'primitive values are stored',
      { plan: 'pro', seats: 3, vip: true },
      { set: { plan: 'pro', seats: 3, vip: true }, unset: [] },
    ],
    ['null deletes the key', { plan: null }, { set: {}, unset: ['plan'] }],
    ['empty string is ignored', { plan: '' }, { set: {}, unset: [] }],
    [
      'reserved keys are dropped',
      {
        id: 'x',
        email: 'x',
        stamp_id: 'x',
        stamp_email: 'x',
        plunk_id: 'x',
        plunk_email: 'x',
        unsubscribeUrl: 'x',
        subscribeUrl: 'x',
        manageUrl: 'x',
        keep: 1,
      },
      { set: { keep: 1 }, unset: [] },
    ],
    [
      '{value, persistent:false} is not stored',
      { otp: { value: '123', persistent: false } },
      { set: {}, unset: [] },
    ],
    [
      '{value, persistent:true} stores value',
      { plan: { value: 'pro', persistent: true } },
      { set: { plan: 'pro' }, unset: [] },
    ],
    ['{value} stores value', { plan: { value: 'pro' } }, { set: { plan: 'pro' }, unset: [] }],
    ['undefined input is an empty patch', undefined, { set: {}, unset: [] }],
    [
      'value of exactly 2,000 characters is kept',
      { long: 'a'.repeat(2000) },
      { set: { long: 'a'.repeat(2000) }, unset: [] },
    ],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(dataPatch(input)).toEqual(expected);
  });

  it.each([
    ['a key longer than 255 characters', { ['k'.repeat(256)]: 'v' }],
    ['a value longer than 2,000 characters', { long: 'a'.repeat(2001) }],
  ])('refuses %s with 422 naming the field', (_name, input) => {
    let thrown: unknown;
    try {
      dataPatch(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(422);
    expect((thrown as ApiError).options.errors?.[0]?.field).toMatch(/^data\./);
  });
});

describe('applyPatch', () => {
  it('keeps only real changes', () => {
    const { changes, data } = applyPatch(
      { plan: 'pro', seats: 3 },
      { set: { plan: 'pro', seats: 4 }, unset: ['missing', 'plan'] },
    );
    expect(changes).toEqual({ set: { seats: 4 }, unset: [] });
    expect(data).toEqual({ plan: 'pro', seats: 4 });
  });

  it('unsets existing keys', () => {
    expect(applyPatch({ plan: 'pro' }, { set: {}, unset: ['plan'] })).toEqual({
      changes: { set: {}, unset: ['plan'] },
      data: {},
    });
  });

  it('refuses more than 100 keys with 422', () => {
    const current = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(() => applyPatch(current, { set: { extra: 1 }, unset: [] })).toThrow(ApiError);
    expect(applyPatch(current, { set: { k1: 5 }, unset: [] }).changes.set).toEqual({ k1: 5 });
  });
});

describe('dataSchema', () => {
  it.each([[{ nested: { a: 1 } }], [{ list: [1, 2] }], [{ v: { value: { deep: 1 } } }]])(
    'refuses nested objects and arrays: %j',
    (data) => {
      expect(dataSchema.safeParse(data).success).toBe(false);
    },
  );
  it('accepts primitives, null and {value, persistent}', () => {
    expect(
      dataSchema.safeParse({ a: 'x', b: 1, c: false, d: null, e: { value: 1, persistent: false } })
        .success,
    ).toBe(true);
  });
});
