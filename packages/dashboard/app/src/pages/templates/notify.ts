import { notifications } from '@mantine/notifications';

/** Shows a short notification: green for done, red for a failure. */
export function notify(message: string, options: { title?: string; failed?: boolean } = {}) {
  notifications.show({
    color: options.failed === true ? 'red' : 'green',
    message,
    ...(options.title === undefined ? {} : { title: options.title }),
  });
}
