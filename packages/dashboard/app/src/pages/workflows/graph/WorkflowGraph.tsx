import {
  Background,
  type Connection,
  Controls,
  type Edge,
  MarkerType,
  ReactFlow,
  type ReactFlowInstance,
  useEdgesState,
  useNodesState,
} from '@xyflow/react';
import { useEffect, useMemo, useRef } from 'react';

import type { Schema } from '../../../api/client';
import { outletOf, outletsOf, type Step, summaryOf } from '../steps';
import { layout, type Point } from './layout';
import { StepNode, type StepNodeType } from './StepNode';

const NODE_TYPES = { step: StepNode };
const NO_EDGES: Edge[] = [];
const FIT_VIEW = { padding: 0.2, maxZoom: 1 };

/** Words of the way out of a step a transition takes, shown on its edge. */
function edgeLabel(step: Step | undefined, outlet: string): string | undefined {
  return outletsOf(step?.type ?? 'DELAY').find((item) => item.key === outlet && item.key !== 'next')
    ?.label;
}

/**
 * The workflow as a graph (xyflow): the trigger and the steps as nodes, the transitions as
 * edges, labelled by their branch or wait outcome. Dragging from a step's handle to another step
 * connects them; a selected edge is removed with Backspace or Delete; a moved step keeps its
 * place. Every step is a button that selects it.
 */
export function WorkflowGraph({
  workflow,
  selectedId,
  onSelect,
  onConnect,
  onMove,
  onDisconnect,
  templateName,
}: {
  workflow: Schema<'Workflow'>;
  selectedId: string | undefined;
  onSelect: (stepId: string) => void;
  onConnect: (fromStepId: string, toStepId: string, outlet: string) => void;
  onMove: (stepId: string, position: Point) => void;
  onDisconnect: (transitionId: string) => void;
  templateName: (id: string) => string | undefined;
}) {
  const positions = useMemo(
    () => layout(workflow.steps, workflow.transitions),
    [workflow.steps, workflow.transitions],
  );
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNodeType>([]);
  const [edges, setEdges, onEdgesChange] = useEdgesState(NO_EDGES);
  const instance = useRef<ReactFlowInstance<StepNodeType> | undefined>(undefined);

  // A step added or removed: every step in view again, once the nodes are drawn.
  const count = workflow.steps.length;
  useEffect(() => {
    const timer = setTimeout(() => void instance.current?.fitView(FIT_VIEW), 50);
    return () => clearTimeout(timer);
  }, [count]);

  useEffect(() => {
    setNodes((previous) =>
      workflow.steps.map((step): StepNodeType => {
        const before = previous.find((node) => node.id === step.id);
        return {
          ...before,
          id: step.id,
          type: 'step',
          position: positions.get(step.id) ?? before?.position ?? { x: 0, y: 0 },
          deletable: false,
          data: {
            step,
            summary: summaryOf(step, workflow, templateName),
            selected: step.id === selectedId,
            onSelect,
          },
        };
      }),
    );
  }, [workflow, positions, selectedId, onSelect, templateName, setNodes]);

  useEffect(() => {
    const names = new Map(workflow.steps.map((step) => [step.id, step]));
    setEdges(
      workflow.transitions.map((transition): Edge => {
        const from = names.get(transition.fromStepId);
        const outlet = outletOf(transition);
        const label = edgeLabel(from, outlet);
        const to = names.get(transition.toStepId);
        return {
          id: transition.id,
          source: transition.fromStepId,
          target: transition.toStepId,
          ...(outlet === 'next' ? {} : { sourceHandle: outlet }),
          ...(label === undefined ? {} : { label }),
          type: 'smoothstep',
          markerEnd: { type: MarkerType.ArrowClosed },
          ariaLabel: `From ${from?.name ?? 'a step'} to ${to?.name ?? 'a step'}${label === undefined ? '' : ` (${label.toLowerCase()})`}`,
        };
      }),
    );
  }, [workflow, setEdges]);

  return (
    <div style={{ height: 520 }}>
      <ReactFlow<StepNodeType>
        aria-label={`Steps of the workflow ${workflow.name}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        nodesFocusable={false}
        edgesFocusable={false}
        fitView
        fitViewOptions={FIT_VIEW}
        onInit={(flow) => {
          instance.current = flow;
        }}
        onConnect={(connection: Connection) =>
          onConnect(connection.source, connection.target, connection.sourceHandle ?? 'next')
        }
        onNodeDragStop={(_event, node) => onMove(node.id, node.position)}
        onEdgesDelete={(deleted) => {
          for (const edge of deleted) onDisconnect(edge.id);
        }}
        deleteKeyCode={['Backspace', 'Delete']}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
