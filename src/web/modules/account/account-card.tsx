// Frame of the public account screens: a narrow centred card under the top bar.
import type { ReactNode } from 'react';
import { Card, Center, Stack, Title } from '@mantine/core';

export function AccountCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center py="xl" px="xs">
      <Card withBorder shadow="sm" padding="xl" radius="md" maw={460} w="100%">
        <Stack gap="md">
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Card>
    </Center>
  );
}
