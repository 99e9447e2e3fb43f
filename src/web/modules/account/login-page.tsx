// /login and / ('Connexion'). A logged-in user goes to /admin (or back to the screen
// they were sent here from). The red flash is the 'Accès non authorisé.' left by lib/api.ts.
import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, Navigate } from 'react-router';
import { loginSchema } from '../../../shared/schemas/account';
import { NETWORK_ERROR_MESSAGE, readFailure, UNAUTHORIZED_FLASH_KEY } from '../../lib/api';
import { useZodForm } from '../../lib/form';
import { setLoggedUser } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { AccountCard } from './account-card';
import { login } from './account.api';

function readFlash(): string | null {
  try {
    return sessionStorage.getItem(UNAUTHORIZED_FLASH_KEY);
  } catch {
    return null;
  }
}

export const NO_ROLE_MESSAGE = "Votre compte n'a pas encore de rôle : contactez un administrateur.";

export function LoginPage() {
  const logged = useSessionStore((s) => s.logged);
  const path = useSessionStore((s) => s.path);
  const queryClient = useQueryClient();
  const [flash] = useState(readFlash);
  const [error, setError] = useState<string | null>(null);
  const form = useZodForm(loginSchema, { initialValues: { username: '', password: '' } });

  useEffect(() => {
    // Shown once: a reload of the login page no longer says access was refused.
    try {
      sessionStorage.removeItem(UNAUTHORIZED_FLASH_KEY);
    } catch {
      /* nothing stored */
    }
  }, []);

  if (logged) return <Navigate to={path ?? '/admin'} replace />;

  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      const answer = await login(values);
      if (answer.user.roles.length === 0) {
        // An activated account waits for an administrator to give it a role: no screen would
        // open for it, so say so here and end the session rather than bounce it around.
        await fetch('/logout', { credentials: 'same-origin', redirect: 'manual' }).catch(() => undefined);
        setError(NO_ROLE_MESSAGE);
        return;
      }
      // The render below then redirects, once the gate has loaded what this user needs.
      setLoggedUser(queryClient, answer.user);
    } catch (e) {
      const failure = await readFailure(e);
      const unmatched = form.setServerErrors(failure.errors);
      if (failure.network) setError(NETWORK_ERROR_MESSAGE);
      else setError(failure.message ?? unmatched[0]?.error ?? 'Une erreur est survenue.');
    }
  });

  return (
    <AccountCard title="Connexion">
      {flash && (
        <Alert color="red" role="alert">
          {flash}
        </Alert>
      )}
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput label="Identifiant ou adresse mail" autoComplete="username" withAsterisk {...form.getInputProps('username')} />
          <PasswordInput label="Mot de passe" autoComplete="current-password" withAsterisk {...form.getInputProps('password')} />
          <Button type="submit" loading={form.submitting} fullWidth mt="xs">
            Connexion
          </Button>
        </Stack>
      </form>
      <Group justify="space-between">
        <Anchor component={Link} to="/password" size="sm">
          Mot de passe oublié ?
        </Anchor>
        <Anchor component={Link} to="/signup" size="sm">
          Créer un compte
        </Anchor>
      </Group>
    </AccountCard>
  );
}
