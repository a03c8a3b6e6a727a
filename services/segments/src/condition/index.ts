/**
 * The filter language of segment conditions and campaign audience filters: validation, the
 * audience document it is tested on, compilation to MongoDB filters, direct evaluation, and the
 * next instant at which time alone changes a result.
 */
export {
  type AudienceDocument,
  dataPath,
  decodePathKey,
  emailLastPath,
  encodePathKey,
  eventLastPath,
  type EventSummary,
} from './audience.ts';
export { boundaryFilter, firstInstantAfter, nextBoundary } from './boundary.ts';
export { compileCondition, type ViewFilter } from './compile.ts';
export {
  type Condition,
  type ConditionContext,
  type ConditionGroup,
  EMAIL_ACTIVITIES,
  type EmailActivity,
  FIELD_OPERATORS,
  type FieldKind,
  type FieldRef,
  type Filter,
  type FilterValue,
  type Logic,
  MAX_DEPTH,
  MAX_DURATION,
  MAX_EXPANDED_FILTERS,
  MAX_FILTERS,
  MAX_GROUPS,
  MAX_NAME_LENGTH,
  MAX_TEXT_LENGTH,
  OPERATORS,
  type Operator,
  parseField,
  type SegmentReference,
  type SegmentResolver,
  TIME_UNITS,
  type TimeUnit,
  type ValueShape,
} from './condition.ts';
export { compareText, evaluateCondition } from './evaluate.ts';
export { parseCondition } from './parse.ts';
export { checkSegmentReferences, forEachFilter } from './references.ts';
