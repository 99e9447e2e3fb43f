// A centred card with a title, a text and optional actions: end states of the account
// screens, 'Page introuvable', loading failures.
import type { ReactNode } from 'react';
import { Card, Center, Stack, Text, Title } from '@mantine/core';

export function PageMessage({ title, children, actions, color }: { title: string; children?: ReactNode; actions?: ReactNode; color?: string }) {
  return (
    <Center py="xl" px="md">
      <Card withBorder shadow="sm" padding="xl" radius="md" maw={480} w="100%">
        <Stack gap="md">
          <Title order={2} size="h3" c={color}>
            {title}
          </Title>
          {typeof children === 'string' ? <Text>{children}</Text> : children}
          {actions}
        </Stack>
      </Card>
    </Center>
  );
}
