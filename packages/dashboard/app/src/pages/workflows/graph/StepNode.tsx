import { Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { Handle, type Node, type NodeProps, Position } from '@xyflow/react';

import { outletsOf, type Step, STEP_TYPES } from '../steps';

/** The data of a step's node. */
export interface StepNodeData extends Record<string, unknown> {
  step: Step;
  summary: string;
  selected: boolean;
  onSelect: (stepId: string) => void;
}

/** A step's node of the graph. */
export type StepNodeType = Node<StepNodeData, 'step'>;

/**
 * A step on the canvas: a button that opens it in the side panel (named "Edit: " and its type,
 * name and what it does), a handle to connect into it (all but the trigger) and one per way out
 * of it (yes/no for a condition, event/timeout for a wait).
 */
export function StepNode({ data }: NodeProps<StepNodeType>) {
  const { step, summary, selected, onSelect } = data;
  const outlets = outletsOf(step.type);
  return (
    <>
      {step.type !== 'TRIGGER' && <Handle type="target" position={Position.Top} />}
      <UnstyledButton
        onClick={() => onSelect(step.id)}
        aria-pressed={selected}
        style={{
          display: 'block',
          width: 220,
          padding: '8px 12px',
          borderRadius: 8,
          background: 'var(--mantine-color-white)',
          border: `2px solid var(--mantine-color-${selected ? 'blue-7' : 'gray-5'})`,
          boxShadow: selected ? '0 0 0 3px var(--mantine-color-blue-1)' : undefined,
        }}
      >
        <VisuallyHidden>Edit: </VisuallyHidden>
        <Text component="span" display="block" size="xs" c="dimmed" tt="uppercase" fw={700}>
          {STEP_TYPES[step.type].label}
        </Text>
        <Text component="span" display="block" size="sm" fw={600} truncate>
          {step.name}
        </Text>
        <Text component="span" display="block" size="xs" lineClamp={2}>
          {summary}
        </Text>
      </UnstyledButton>
      {outlets.map((outlet, index) => (
        <Handle
          key={outlet.key}
          id={outlet.key}
          type="source"
          position={Position.Bottom}
          style={{ left: `${((index + 1) * 100) / (outlets.length + 1)}%` }}
          title={outlet.label}
        />
      ))}
    </>
  );
}
