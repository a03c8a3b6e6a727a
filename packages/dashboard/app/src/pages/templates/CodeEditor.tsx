import { html } from '@codemirror/lang-html';
import { liquid } from '@codemirror/lang-liquid';
import { Input, Paper, Text } from '@mantine/core';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useId, useMemo } from 'react';

/** Props of {@link CodeEditor}. */
export interface CodeEditorProps {
  /** The visible label, also the editor's accessible name. */
  label: string;
  description?: string;
  value: string;
  onChange: (value: string) => void;
  /** Variable names offered by autocompletion inside `{{ }}`. */
  variables?: readonly string[];
  error?: string | undefined;
  minHeight?: string;
}

/**
 * An HTML and Liquid code editor (CodeMirror) with line numbers, highlighting, autocompletion
 * of `variables`, and Tab left to the browser so the keyboard can move on past it.
 */
export default function CodeEditor({
  label,
  description,
  value,
  onChange,
  variables = [],
  error,
  minHeight = '320px',
}: CodeEditorProps) {
  const labelId = useId();
  const descriptionId = useId();
  const errorId = useId();
  const describedBy = [description !== undefined && descriptionId, error !== undefined && errorId]
    .filter(Boolean)
    .join(' ');
  const extensions = useMemo(
    () => [
      liquid({
        base: html(),
        variables: variables.map((name) => ({ label: name, type: 'variable' })),
      }),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        'aria-labelledby': labelId,
        ...(describedBy === '' ? {} : { 'aria-describedby': describedBy }),
        ...(error === undefined ? {} : { 'aria-invalid': 'true' }),
      }),
    ],
    [variables, labelId, describedBy, error],
  );
  return (
    <div>
      <Text component="div" id={labelId} size="sm" fw={500}>
        {label}
      </Text>
      {description !== undefined && (
        <Input.Description id={descriptionId} mb={4}>
          {description}
        </Input.Description>
      )}
      <Paper withBorder radius="sm" style={{ overflow: 'hidden' }}>
        <CodeMirror
          value={value}
          onChange={onChange}
          extensions={extensions}
          indentWithTab={false}
          minHeight={minHeight}
          maxHeight="640px"
          // The active line's tint would lower the contrast of highlighted code below 4.5:1.
          basicSetup={{ foldGutter: false, highlightActiveLine: false }}
        />
      </Paper>
      {error !== undefined && (
        <Input.Error id={errorId} mt={4}>
          {error}
        </Input.Error>
      )}
    </div>
  );
}
