/**
 * Image uploads (spec part 4, "POST /uploads/image"; README "Uploads"):
 * - POST /uploads/image (authenticated: secret key, or a member's session with `X-Project-Id`):
 *   multipart/form-data with one image in the form field `file` (or `image`), at most
 *   `maxBytes`; its type is sniffed from its bytes (PNG, JPEG, GIF, WebP); it is stored under
 *   `<projectId>/<id>.<ext>` with a random 128-bit id and answered 201 `{id, url, contentType,
 *   size}`;
 * - GET /images/:projectId/:file (public, no key): the stored bytes, with the sniffed content
 *   type, `nosniff`, an immutable year-long cache and `Content-Security-Policy: default-src
 *   'none'`; an unknown or malformed key answers 404.
 * Uploads are not recorded as events: the storage port is the only record of an image, and the
 * bytes never reach the event log.
 */
import { randomBytes } from 'node:crypto';

import { ApiError, badRequest, caller, notFound, validationError } from '@stamp/http-kit';
import type { Logger } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import multer from 'multer';

import { ACCEPTED_MIME_TYPES, imageTypeOfExtension, sniffImage } from './sniff.ts';
import { extensionOf, isUploadKey, type StoredObject, type UploadStore } from './store.ts';

/** Path prefix of the public image URLs (listed in `PUBLIC_SERVICE_ROUTES`). */
export const IMAGES_PATH = '/images';

/** The form fields an image may come in: `file`, and `image` as an alias. */
export const IMAGE_FIELDS: readonly string[] = ['file', 'image'];

/**
 * Bytes a multipart body may have beyond its file (boundaries, part headers, a few small
 * fields): a body whose `Content-Length` passes the cap by more is refused before it is read.
 */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Headers of a served image: it never changes (its key is new per upload) and runs nothing. */
const IMAGE_HEADERS = {
  'Cache-Control': 'public, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'",
  // Dashboards and mail clients of other origins show it.
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** Dependencies of {@link uploadsRouter} and {@link imagesRouter}. */
export interface UploadsDeps {
  store: UploadStore;
  /** STAMP_PUBLIC_URL: base of the image URLs. */
  publicUrl: string;
  /** STAMP_UPLOAD_MAX_BYTES: the largest file accepted, bytes. */
  maxBytes: number;
  logger: Logger;
}

/** The uploaded image as POST /uploads/image answers it. */
export interface UploadedImage {
  /** The random id of the image (32 hex digits), the last part of its URL before the extension. */
  id: string;
  /** Public URL: `{STAMP_PUBLIC_URL}/images/<projectId>/<id>.<ext>`. */
  url: string;
  /** The sniffed type: `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  contentType: string;
  /** Bytes. */
  size: number;
}

/** `n` bytes as `5 MiB`, `512 KiB` or `100 bytes`, for messages. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const tooLarge = (maxBytes: number): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `The image is larger than ${sizeText(maxBytes)}`, {
    suggestion: `Send an image of at most ${maxBytes} bytes.`,
  });

const SEND_AS_FORM = 'Send the image as multipart/form-data in the form field "file".';

/** Maps an error of the multipart reader to the API error answered. */
function multipartError(error: unknown, maxBytes: number): ApiError {
  if (error instanceof multer.MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return tooLarge(maxBytes);
      case 'LIMIT_FILE_COUNT':
        return validationError([
          { field: 'file', message: 'Send exactly one image', code: 'too_big' },
        ]);
      default:
        return badRequest(`Invalid multipart upload: ${error.message}`, {
          suggestion: SEND_AS_FORM,
        });
    }
  }
  return badRequest('Malformed multipart body', { suggestion: SEND_AS_FORM });
}

/** The public URL of the image under `key`. */
function urlOf(publicUrl: string, key: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${IMAGES_PATH}/${key}`;
}

/**
 * The authenticated upload route (see the module comment). Errors, in the error envelope:
 * 400 BAD_REQUEST (not multipart/form-data, a malformed multipart body, too many parts or
 * fields), 413 PAYLOAD_TOO_LARGE (a file over `maxBytes`, or a body announced larger than that
 * and its multipart overhead), 415 UNSUPPORTED_MEDIA_TYPE (bytes that are not PNG, JPEG, GIF or
 * WebP, SVG included, whatever name and type the client gave), 422 VALIDATION_ERROR on `file`
 * (no file, an empty file, more than one file), 503 SERVICE_UNAVAILABLE (the storage failed).
 */
export function uploadsRouter(deps: UploadsDeps): Router {
  const router = Router();
  const upload = multer({
    storage: multer.memoryStorage(),
    // Clients send UTF-8 file names (WHATWG FormData) without declaring a charset.
    defParamCharset: 'utf8',
    limits: {
      fileSize: deps.maxBytes,
      files: 1,
      fields: 10,
      fieldSize: 1024,
      parts: 11,
      headerPairs: 50,
    },
  }).any();

  /** Reads the multipart body (the file in memory) onto `req.files`. */
  const receive = (req: Request, res: Response): Promise<void> =>
    new Promise((resolve, reject) => {
      void upload(req, res, (error?: unknown) => {
        if (error === undefined || error === null) resolve();
        else reject(multipartError(error, deps.maxBytes));
      });
    });

  router.post('/uploads/image', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    if (typeof req.is('multipart/form-data') !== 'string') {
      throw badRequest('The image must be sent as multipart/form-data', {
        suggestion: SEND_AS_FORM,
      });
    }
    const announced = Number(req.headers['content-length']);
    if (Number.isFinite(announced) && announced > deps.maxBytes + MULTIPART_OVERHEAD_BYTES) {
      throw tooLarge(deps.maxBytes);
    }
    await receive(req, res);
    const files = Array.isArray(req.files) ? req.files : [];
    const file = files.find((candidate) => IMAGE_FIELDS.includes(candidate.fieldname));
    if (file === undefined) {
      const other = files[0]?.fieldname;
      throw validationError([
        {
          field: 'file',
          message: 'An image is required in the form field "file"',
          code: 'required',
          ...(other === undefined ? {} : { received: `a file in the field "${other}"` }),
        },
      ]);
    }
    if (file.size === 0) {
      throw validationError([{ field: 'file', message: 'The image is empty', code: 'too_small' }]);
    }
    const sniffed = await sniffImage(file.buffer);
    if (!sniffed.accepted) {
      throw new ApiError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `The file is not a PNG, JPEG, GIF or WebP image${sniffed.detected === null ? '' : ` (it is ${sniffed.detected})`}; SVG is not accepted`,
        {
          details: { detected: sniffed.detected, accepted: ACCEPTED_MIME_TYPES },
          suggestion: 'Convert the image to PNG, JPEG, GIF or WebP.',
        },
      );
    }
    const id = randomBytes(16).toString('hex');
    const key = `${projectId}/${id}.${sniffed.type.extension}`;
    if (!isUploadKey(key)) throw new Error(`project id ${projectId} cannot name an upload`);
    try {
      await deps.store.put(key, file.buffer, sniffed.type.mime);
    } catch (error) {
      deps.logger.error({ err: error, key, store: deps.store.description }, 'upload not stored');
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The image could not be stored', {
        suggestion: 'Retry shortly.',
      });
    }
    const url = urlOf(deps.publicUrl, key);
    const answer: UploadedImage = { id, url, contentType: sniffed.type.mime, size: file.size };
    res.status(201).location(url).json(answer);
  });

  return router;
}

/**
 * The public route serving uploaded images (see the module comment): GET and HEAD
 * /images/:projectId/:file. Errors, in the error envelope: 404 RESOURCE_NOT_FOUND (no image
 * under that key, or a key that cannot be one: other characters, another extension, a path
 * that climbs out, every other path and method under /images), 503 SERVICE_UNAVAILABLE (the
 * storage failed).
 */
export function imagesRouter(deps: UploadsDeps): Router {
  const router = Router();
  router.get(`${IMAGES_PATH}/:projectId/:file`, async (req: Request, res: Response) => {
    const key = `${String(req.params.projectId)}/${String(req.params.file)}`;
    const type = imageTypeOfExtension(extensionOf(key));
    if (!isUploadKey(key) || type === null) throw notFound('RESOURCE_NOT_FOUND', 'Image not found');
    let stored: StoredObject | null;
    try {
      stored = await deps.store.get(key);
    } catch (error) {
      deps.logger.error({ err: error, key, store: deps.store.description }, 'upload not read');
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The image could not be read', {
        suggestion: 'Retry shortly.',
      });
    }
    if (stored === null) throw notFound('RESOURCE_NOT_FOUND', 'Image not found');
    res.status(200).set(IMAGE_HEADERS).type(type.mime).send(stored.bytes);
  });
  // Everything else under the prefix (other methods, other depths) is no image either.
  router.use(IMAGES_PATH, () => {
    throw notFound('RESOURCE_NOT_FOUND', 'Image not found');
  });
  return router;
}
