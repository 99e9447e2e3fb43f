// Toasts: errors stay 10 s, successes 3 s (the contract's durations).
import { notifications } from '@mantine/notifications';

export function notifySuccess(message: string) {
  notifications.show({ message, color: 'green', autoClose: 3000 });
}

export function notifyError(message = 'Une erreur est survenue') {
  notifications.show({ message, color: 'red', autoClose: 10_000 });
}
