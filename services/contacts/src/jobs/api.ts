/**
 * Routes of contact jobs (spec part 4, "Contacts"; spec part 8 limits; secret key, mounted by the
 * gateway behind auth): POST /contacts/import (multipart CSV, at most 5 MB), GET
 * /contacts/import/:jobId, POST /contacts/bulk-subscribe, /contacts/bulk-unsubscribe and
 * /contacts/bulk-delete (1 to 1,000 contact ids), GET /contacts/bulk/:jobId. Jobs are queued as
 * events and answered 202 with the job; the worker runs them; status is read from the view.
 */
import type { AwaitViews } from '@stamp/contracts';
import { ApiError, badRequest, caller, notFound, parse, validationError } from '@stamp/http-kit';
import { type EventStore, newId, type NewEvent, type ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import multer from 'multer';
import { z } from 'zod';

import { MAX_IMPORT_BYTES, parseContactsCsv } from './csv.ts';
import { MAX_BULK_IDS, queueBulk, queueImport } from './decide.ts';
import {
  BULK_KINDS,
  type BulkKind,
  importRowsStreamId,
  type JobKind,
  type JobQueued,
  type JobStatus,
  jobStreamId,
  type RowError,
  type RowOutcome,
} from './events.ts';
import { type ContactJobView, contactJobsView, queuedJobView } from './projection.ts';

/** Dependencies of {@link contactJobsRouter}. */
export interface ContactJobsRouterDeps {
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
}

/**
 * A job as the API answers it (API reference, job status): `progress` 0..100 (rounded down;
 * 100 once COMPLETED), `processed` of `total` rows, `result` counters by outcome (disjoint, their
 * sum is `processed`), the first 1,000 row `errors` and `errorCount` of all, `failedReason` of a
 * FAILED job. `fileName` is given for imports only.
 */
export interface JobResource {
  id: string;
  type: JobKind;
  status: JobStatus;
  progress: number;
  processed: number;
  total: number;
  result: Partial<Record<RowOutcome, number>>;
  errors: RowError[];
  errorCount: number;
  failedReason: string | null;
  fileName?: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

/** The API form of a jobs view document. */
export function toJobResource(view: ContactJobView): JobResource {
  const progress =
    view.status === 'COMPLETED' || view.total === 0
      ? 100
      : Math.min(100, Math.floor((view.processed * 100) / view.total));
  return {
    id: view._id,
    type: view.kind,
    status: view.status,
    progress,
    processed: view.processed,
    total: view.total,
    result: view.result,
    errors: view.errors,
    errorCount: view.errorCount,
    failedReason: view.failedReason,
    ...(view.kind === 'import' ? { fileName: view.fileName } : {}),
    createdAt: view.createdAt,
    startedAt: view.startedAt,
    completedAt: view.completedAt,
  };
}

/** Body of POST /contacts/bulk-subscribe, /contacts/bulk-unsubscribe and /contacts/bulk-delete. */
export const bulkBody = z.object({
  contactIds: z.array(z.string().trim().min(1).max(100)).min(1).max(MAX_BULK_IDS),
  /** Plunk clients send `mode: 'ids'`; selecting contacts by query is not offered. */
  mode: z.literal('ids').optional(),
});

const upload = multer({
  storage: multer.memoryStorage(),
  // Clients send UTF-8 file names (WHATWG FormData) without declaring a charset.
  defParamCharset: 'utf8',
  limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 20, parts: 25, fieldSize: 64 * 1024 },
}).any();

/** Maps an error of the multipart reader to the API error answered. */
function uploadError(error: unknown): ApiError {
  if (error instanceof multer.MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The CSV file is larger than 5 MB', {
          suggestion: 'Split the file into files of at most 5 MB (5,242,880 bytes) each.',
        });
      case 'LIMIT_FILE_COUNT':
        return validationError([
          { field: 'file', message: 'Send exactly one CSV file', code: 'too_big' },
        ]);
      default:
        return badRequest(`Invalid multipart upload: ${error.message}`);
    }
  }
  return badRequest('Malformed multipart body', {
    suggestion: 'Send the CSV file as multipart/form-data in the form field "file".',
  });
}

/** Reads the multipart body (files in memory, at most one of 5 MB) onto `req.files`. */
function receive(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void upload(req, res, (error?: unknown) => {
      if (error === undefined || error === null) resolve();
      else reject(uploadError(error));
    });
  });
}

const jobIdOf = (req: Request): string => String(req.params.jobId);

/**
 * The contact jobs router. POSTs answer 202 `{jobId, message, ...job}` (the job as GET answers
 * it, status QUEUED) once the job is recorded; GETs answer the job.
 * Errors: 400 BAD_REQUEST (import not sent as multipart/form-data, malformed multipart body),
 * 413 PAYLOAD_TOO_LARGE (file over 5 MB), 422 VALIDATION_ERROR (no file, empty file, header
 * without `email`, no rows; bulk: `contactIds` missing, empty or over 1,000), 404
 * RESOURCE_NOT_FOUND (unknown job, a job of another project or of the other route family).
 */
export function contactJobsRouter(deps: ContactJobsRouterDeps): Router {
  const router = Router();
  const jobs = contactJobsView(deps.views);

  /** Appends the queuing events and answers 202 with the job once the view shows it. */
  async function queue(
    res: Response,
    projectId: string,
    requestId: string,
    queued: JobQueued,
    rows: NewEvent[],
    message: string,
  ): Promise<void> {
    const jobId = newId();
    const metadata = { projectId, correlationId: requestId };
    const withMetadata = (event: NewEvent): NewEvent => ({ ...event, metadata });
    const result = await deps.store.append([
      {
        streamId: jobStreamId(jobId),
        expectedRevision: 'no_stream',
        events: [withMetadata(queued)],
      },
      ...(rows.length === 0
        ? []
        : [
            {
              streamId: importRowsStreamId(jobId),
              expectedRevision: 'no_stream' as const,
              events: rows.map(withMetadata),
            },
          ]),
    ]);
    await deps.awaitViews(result.position);
    const view =
      (await jobs.findOne({ _id: jobId, projectId })) ??
      queuedJobView(jobId, projectId, queued.data, new Date().toISOString(), 0);
    res.status(202).json({ jobId, message, ...toJobResource(view) });
  }

  async function read(
    projectId: string,
    jobId: string,
    family: 'import' | 'bulk',
  ): Promise<JobResource> {
    const view = await jobs.findOne({ _id: jobId, projectId });
    if (view === null || (view.kind === 'import') !== (family === 'import')) {
      throw notFound(
        'RESOURCE_NOT_FOUND',
        family === 'import' ? 'Import job not found' : 'Bulk job not found',
      );
    }
    return toJobResource(view);
  }

  router.post('/contacts/import', async (req: Request, res: Response) => {
    const who = caller(res);
    if (typeof req.is('multipart/form-data') !== 'string') {
      throw badRequest('The CSV file must be sent as multipart/form-data', {
        suggestion: 'Send the CSV file as multipart/form-data in the form field "file".',
      });
    }
    await receive(req, res);
    const file = Array.isArray(req.files) ? req.files[0] : undefined;
    if (file === undefined) {
      throw validationError([
        {
          field: 'file',
          message: 'A CSV file is required in the form field "file"',
          code: 'required',
        },
      ]);
    }
    const parsed = await parseContactsCsv(file.buffer);
    const { queued, chunks } = queueImport({
      columns: parsed.columns,
      rows: parsed.rows,
      fileName: file.originalname === '' ? null : file.originalname,
      bytes: file.size,
    });
    await queue(res, who.projectId, who.requestId, queued, chunks, 'Import queued');
  });

  router.get('/contacts/import/:jobId', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json(await read(projectId, jobIdOf(req), 'import'));
  });

  for (const kind of BULK_KINDS) {
    router.post(`/contacts/${kind}`, async (req: Request, res: Response) => {
      const who = caller(res);
      const body = parse(bulkBody, req.body ?? {});
      const queued = queueBulk(kind satisfies BulkKind, body.contactIds);
      const message = `Bulk ${kind.slice('bulk-'.length)} queued`;
      await queue(res, who.projectId, who.requestId, queued, [], message);
    });
  }

  router.get('/contacts/bulk/:jobId', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json(await read(projectId, jobIdOf(req), 'bulk'));
  });

  return router;
}
