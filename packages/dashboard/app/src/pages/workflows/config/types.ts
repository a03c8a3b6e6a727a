import type { StepDraft } from '../steps';

/** Props of the form of one step type's config: its draft, its changes, the API's last error. */
export interface ConfigFieldsProps<Type extends StepDraft['type']> {
  draft: Extract<StepDraft, { type: Type }>;
  onChange: (draft: Extract<StepDraft, { type: Type }>) => void;
  error: unknown;
}
