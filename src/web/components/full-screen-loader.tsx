// Whole-page wait: shown until the session and reference data are loaded.
import { Center, Loader, Stack, Text } from '@mantine/core';

export function FullScreenLoader({ label = 'Chargement…' }: { label?: string }) {
  return (
    <Center h="100dvh" role="status" aria-live="polite">
      <Stack align="center" gap="sm">
        <Loader size="lg" aria-hidden />
        <Text c="dimmed">{label}</Text>
      </Stack>
    </Center>
  );
}
