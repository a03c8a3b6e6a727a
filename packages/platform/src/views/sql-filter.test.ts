import fc from 'fast-check';

import { trigramsOf } from './sql-filter.ts';

describe('trigramsOf', () => {
  it('gives each distinct run of three code points once', () => {
    expect(trigramsOf('abcd')).toEqual(['abc', 'bcd']);
    expect(trigramsOf('aaaaa')).toEqual(['aaa']);
    expect(trigramsOf('ab')).toEqual([]);
    expect(trigramsOf('a😀bcd')).toEqual(['a😀b', '😀bc', 'bcd']);
  });

  it('counts code points as the trigram tokenizer does, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (text) => {
        const points = Array.from(text);
        const expected = new Set<string>();
        for (let index = 0; index + 3 <= points.length; index += 1) {
          expected.add(points.slice(index, index + 3).join(''));
        }
        expect(trigramsOf(text)).toEqual([...expected]);
      }),
    );
  });
});
