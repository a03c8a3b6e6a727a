/**
 * The segments service (spec parts 2 and 4, "Segments"): dynamic and static segments with tracked
 * membership. So far its filter language (`condition/`), shared with campaign audience filters.
 */
export * from './condition/index.ts';
export { createSegmentsService, type SegmentsServiceDeps } from './service.ts';
