// 'Données du 25/11 à 10:42': says how old the data on screen is when it could not be
// refreshed (no network, server unreachable), so a provider working all day without signal
// knows what they are looking at. The screens decide when to show it.
import { Badge } from '@mantine/core';
import { formatParisDateTime } from '../../shared/dates';

/** The stamp's text for data last received at `updatedAt` (ms since the epoch), in Paris time. */
export function dataAgeLabel(updatedAt: number): string {
  const text = formatParisDateTime(new Date(updatedAt)); // dd/MM/yyyy HH:mm
  return `Données du ${text.slice(0, 5)} à ${text.slice(11)}`;
}

export function DataAge({ updatedAt, show }: { updatedAt: number | undefined; show: boolean }) {
  if (!show || !updatedAt) return null;
  return (
    <Badge variant="light" color="gray" size="lg" radius="sm" tt="none" fw={500} role="status">
      {dataAgeLabel(updatedAt)}
    </Badge>
  );
}
