/**
 * Tiny, valid images of each accepted format (and an SVG), built byte by byte, for the tests of
 * uploads. Each decodes to a 1×1 picture.
 */
import { crc32, deflateSync } from 'node:zlib';

/** A PNG chunk (PNG specification §5.3): length, type, data, CRC-32 of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A 1×1 RGBA PNG of one red pixel; with `padding`, a private ancillary chunk `prVt` of that many
 * bytes makes it larger (decoders skip it), for size limits.
 */
export function samplePng(padding = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  // compression, filter and interlace methods: 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(padding > 0 ? [pngChunk('prVt', Buffer.alloc(padding, 0x2a))] : []),
    // One scanline: filter type 0, then the pixel.
    pngChunk('IDAT', deflateSync(Buffer.from([0, 0xff, 0x00, 0x00, 0xff]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG marker segment: `FF <marker>`, its length (itself included) and `data`. */
function jpegSegment(marker: number, data: readonly number[]): number[] {
  const length = data.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...data];
}

/**
 * A 1×1 grey baseline JPEG (ITU T.81): JFIF header, a quantisation table of ones, one 8-bit
 * component, a DC and an AC Huffman table of a single 1-bit code (symbol 0), and one block whose
 * DC difference is 0 followed by end-of-block: the bits `00`, padded with ones.
 */
export function sampleJpeg(): Buffer {
  const oneCodeTable = (tableClass: number): number[] => [
    tableClass << 4,
    1,
    ...new Array<number>(15).fill(0),
    0x00,
  ];
  return Buffer.from([
    0xff,
    0xd8, // SOI
    ...jpegSegment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0 JFIF
    ...jpegSegment(0xdb, [0x00, ...new Array<number>(64).fill(1)]), // DQT 0
    ...jpegSegment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]), // SOF0: 8 bits, 1×1, component 1
    ...jpegSegment(0xc4, oneCodeTable(0)), // DHT: DC table 0
    ...jpegSegment(0xc4, oneCodeTable(1)), // DHT: AC table 0
    ...jpegSegment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS: component 1, tables 0/0, full spectrum
    0x3f, // DC category 0 (code 0), EOB (code 0), then six padding ones
    0xff,
    0xd9, // EOI
  ]);
}

/** A 1×1 transparent GIF89a (a global table of two colours, one LZW-coded pixel). */
export function sampleGif(): Buffer {
  const parts: number[][] = [
    [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00], // screen 1×1, global colour table of 2
    [0x00, 0x00, 0x00, 0xff, 0xff, 0xff], // black, white
    [0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00], // graphic control: colour 0 transparent
    [0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00], // image 1×1 at 0,0
    // LZW minimum code size 2; one sub-block of 2 bytes: clear, pixel 0, end (3 bits each).
    [0x02, 0x02, 0x44, 0x01, 0x00],
    [0x3b], // trailer
  ];
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    ...parts.map((part) => Buffer.from(part)),
  ]);
}

/** A 1×1 lossless WebP (RIFF container, one `VP8L` chunk of 13 bytes and its padding byte). */
export function sampleWebp(): Buffer {
  const vp8l = [0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07];
  const chunk = [0x56, 0x50, 0x38, 0x4c, vp8l.length, 0, 0, 0, ...vp8l, 0x00];
  const body = [0x57, 0x45, 0x42, 0x50, ...chunk]; // WEBP
  return Buffer.from([0x52, 0x49, 0x46, 0x46, body.length, 0, 0, 0, ...body]); // RIFF
}

/** An SVG image with a script: what must never be served from Stamp's origin. */
export function sampleSvg(): Buffer {
  return Buffer.from(
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">' +
      '<script>alert(document.domain)</script><rect width="1" height="1"/></svg>\n',
  );
}
