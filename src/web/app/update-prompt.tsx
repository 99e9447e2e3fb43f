// Persistent banner offering the waiting new version (see pwa.ts).
import { Affix, Alert, Button, Group, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useUpdateStore } from './pwa';

export function UpdatePrompt() {
  const applyUpdate = useUpdateStore((s) => s.applyUpdate);
  const [applying, setApplying] = useState(false);
  if (!applyUpdate) return null;
  return (
    <Affix position={{ bottom: 16, left: 16 }} zIndex={400}>
      <Alert color="green" variant="filled" role="alert" icon={<IconRefresh aria-hidden />} maw={420}>
        <Group gap="sm" wrap="nowrap">
          <Text size="sm">Une nouvelle version est disponible</Text>
          <Button
            size="xs"
            variant="white"
            color="green"
            loading={applying}
            onClick={() => {
              setApplying(true);
              applyUpdate();
            }}
          >
            Mettre à jour
          </Button>
        </Group>
      </Alert>
    </Affix>
  );
}
