/**
 * The image types uploads accept (README "Uploads"), recognised from the bytes with `file-type`
 * (magic numbers), never from the name or the content type the client declares.
 */

/** An accepted image type: its MIME type and the extension of its key and public URL. */
export interface ImageType {
  mime: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  extension: 'png' | 'jpg' | 'gif' | 'webp';
}

/** The accepted image types by extension: PNG, JPEG, GIF and WebP. */
export const IMAGE_TYPES: Readonly<Record<ImageType['extension'], ImageType>> = {
  png: { mime: 'image/png', extension: 'png' },
  jpg: { mime: 'image/jpeg', extension: 'jpg' },
  gif: { mime: 'image/gif', extension: 'gif' },
  webp: { mime: 'image/webp', extension: 'webp' },
};

/** The MIME types of {@link IMAGE_TYPES}, for messages. */
export const ACCEPTED_MIME_TYPES: readonly string[] = Object.values(IMAGE_TYPES).map(
  (type) => type.mime,
);

/**
 * What `file-type` answers for the accepted formats. An animated PNG (APNG, reported as
 * `image/apng`) is a PNG file and is served as `image/png`, as browsers expect.
 */
const BY_DETECTED_MIME: Readonly<Record<string, ImageType>> = {
  'image/png': IMAGE_TYPES.png,
  'image/apng': IMAGE_TYPES.png,
  'image/jpeg': IMAGE_TYPES.jpg,
  'image/gif': IMAGE_TYPES.gif,
  'image/webp': IMAGE_TYPES.webp,
};

/** What {@link sniffImage} found. */
export type SniffResult =
  | { accepted: true; type: ImageType }
  /** `detected`: the MIME type `file-type` sees in the bytes, else null (plain text, bare SVG). */
  | { accepted: false; detected: string | null };

/**
 * The image type of `bytes` from their signature: accepted when PNG, JPEG, GIF or WebP; anything
 * else is refused: SVG (seen as `application/xml` with an XML declaration, else as nothing), every
 * other text format, other images, documents.
 */
export async function sniffImage(bytes: Uint8Array): Promise<SniffResult> {
  // Loaded at the first upload: a process that never takes one does not hold it.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(bytes);
  const type = found === undefined ? undefined : BY_DETECTED_MIME[found.mime];
  if (type !== undefined) return { accepted: true, type };
  return { accepted: false, detected: found?.mime ?? null };
}

/** The content type of an upload key by its extension (`png` → `image/png`); null for another. */
export function imageTypeOfExtension(extension: string): ImageType | null {
  return Object.hasOwn(IMAGE_TYPES, extension)
    ? IMAGE_TYPES[extension as ImageType['extension']]
    : null;
}
