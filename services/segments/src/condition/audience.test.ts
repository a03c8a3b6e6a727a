import fc from 'fast-check';

import { dataPath, decodePathKey, encodePathKey, eventLastPath } from './audience.ts';

describe('encodePathKey', () => {
  it.each([
    ['plan', 'plan'],
    ['segment.vip.entry', 'segment%2Evip%2Eentry'],
    ['$price', '%24price'],
    ['50%', '50%25'],
    ['%2E', '%252E'],
    ['say "hi"', 'say %22hi%22'],
    ['back\\slash', 'back%5Cslash'],
    ['nul\0', 'nul%00'],
    ['__proto__', '%5F_proto__'],
    ['ünïcode 🎉', 'ünïcode 🎉'],
  ])('encodes %j as %j and back', (key, encoded) => {
    expect(encodePathKey(key)).toBe(encoded);
    expect(decodePathKey(encoded)).toBe(key);
  });

  it('gives a single path part, never an operator, distinct keys distinct parts', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const encoded = encodePathKey(a);
        expect(decodePathKey(encoded)).toBe(a);
        expect(encoded).not.toMatch(/[.$"\\\0]/);
        if (a !== b) expect(encodePathKey(b)).not.toBe(encoded);
      }),
      { numRuns: 500 },
    );
  });

  it('names the paths of data and events', () => {
    expect(dataPath('a.b')).toBe('data.a%2Eb');
    expect(eventLastPath('segment.vip.entry')).toBe('events.segment%2Evip%2Eentry.last');
  });
});
