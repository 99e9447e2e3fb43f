// The top bar's count of open alerts not yet acknowledged, for those who receive alerts
// (app/header-slot.tsx loads it on its own, so the shell does not carry it). Hidden at zero.
import { Badge } from '@mantine/core';
import { IconBell } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ALERTS_PATH, badgeQuery } from './alerts.api';

export default function AlertsBadge() {
  const count = useQuery(badgeQuery());
  const n = count.data ?? 0;
  if (n === 0) return null;
  const label = n === 1 ? '1 alerte ouverte' : `${n} alertes ouvertes`;
  return (
    <Badge
      component={Link}
      to={ALERTS_PATH}
      color="red"
      variant="filled"
      leftSection={<IconBell size={12} aria-hidden />}
      aria-label={label}
      title={label}
      style={{ cursor: 'pointer' }}
      data-testid="alerts-badge"
    >
      {n}
    </Badge>
  );
}
