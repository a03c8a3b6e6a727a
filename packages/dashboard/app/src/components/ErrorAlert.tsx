import { Alert, List, Text } from '@mantine/core';

import { ApiError } from '../api/client';

/** Words for an error of the API: its message, each field it concerns, and its suggestion. */
export function ErrorAlert({
  error,
  title = 'That did not work',
}: {
  error: unknown;
  title?: string;
}) {
  if (error === null || error === undefined) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      <Text size="sm">{message}</Text>
      {apiError !== undefined && apiError.errors.length > 0 && (
        <List size="sm" mt="xs">
          {apiError.errors.map((item) => (
            <List.Item key={`${item.field}:${item.message}`}>
              <Text span fw={600} size="sm">
                {item.field || 'body'}
              </Text>
              : {item.message}
            </List.Item>
          ))}
        </List>
      )}
      {apiError?.suggestion !== undefined && (
        <Text size="sm" mt="xs" c="dimmed">
          {apiError.suggestion}
        </Text>
      )}
    </Alert>
  );
}

/** The message of the field `field` in an API error (for a form input's `error`), if any. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.errors.find((item) => item.field === field || item.field.startsWith(`${field}.`))
    ?.message;
}
