/**
 * Sniffing uploads: the type comes from the bytes alone; PNG (APNG too), JPEG, GIF and WebP are
 * accepted, SVG and everything else refused.
 */
import { crc32 } from 'node:zlib';

import { sampleGif, sampleJpeg, samplePng, sampleSvg, sampleWebp } from './sample-images.ts';
import { imageTypeOfExtension, sniffImage } from './sniff.ts';

/** `samplePng` with an `acTL` chunk after its header: an animated PNG of one frame. */
function sampleApng(): Buffer {
  const png = samplePng();
  const data = Buffer.alloc(8);
  data.writeUInt32BE(1, 0); // frames
  const body = Buffer.concat([Buffer.from('acTL', 'latin1'), data]);
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(data.length, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), body.length + 4);
  // Signature (8) and IHDR (25) first.
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}

describe('sniffImage', () => {
  it.each([
    ['PNG', samplePng(), 'image/png', 'png'],
    ['APNG', sampleApng(), 'image/png', 'png'],
    ['JPEG', sampleJpeg(), 'image/jpeg', 'jpg'],
    ['GIF', sampleGif(), 'image/gif', 'gif'],
    ['WebP', sampleWebp(), 'image/webp', 'webp'],
  ])('accepts %s as %s', async (_name, bytes, mime, extension) => {
    expect(await sniffImage(bytes)).toEqual({ accepted: true, type: { mime, extension } });
  });

  it.each([
    ['SVG', sampleSvg(), 'application/xml'],
    [
      'SVG without the XML declaration',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      null,
    ],
    ['HTML', Buffer.from('<!doctype html><script>alert(1)</script>'), null],
    ['PDF', Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'), 'application/pdf'],
    ['BMP', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]), 'image/bmp'],
    ['nothing', Buffer.alloc(0), null],
    ['a truncated PNG signature', samplePng().subarray(0, 4), null],
  ])('refuses %s', async (_name, bytes, detected) => {
    expect(await sniffImage(bytes)).toEqual({ accepted: false, detected });
  });
});

describe('imageTypeOfExtension', () => {
  it('knows the four extensions of accepted images, and only them', () => {
    expect(imageTypeOfExtension('jpg')).toEqual({ mime: 'image/jpeg', extension: 'jpg' });
    expect(imageTypeOfExtension('webp')?.mime).toBe('image/webp');
    for (const other of ['svg', 'jpeg', 'PNG', 'toString', '__proto__', '']) {
      expect(imageTypeOfExtension(other)).toBeNull();
    }
  });
});
