// /password: asks for a reset link. The answer never tells whether the address has an account.
import { useState } from 'react';
import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { z } from 'zod';
import { passwordRequestSchema } from '../../../shared/schemas/account';
import { NETWORK_ERROR_MESSAGE, readFailure } from '../../lib/api';
import { REQUIRED_MESSAGE, useZodForm } from '../../lib/form';
import { AccountCard } from './account-card';
import { requestPasswordReset } from './account.api';


// The server takes any string (and answers the same whatever it is); the form at least
// catches an empty or mistyped address before sending.
const requestFormSchema = z.object({
  mail: passwordRequestSchema.shape.mail.min(1, { message: REQUIRED_MESSAGE }).pipe(z.email({ message: 'Adresse mail invalide' })),
});

export const PASSWORD_REQUEST_DONE =
  'Si un compte correspond à cette adresse, un mail vient de vous être envoyé avec un lien pour choisir un nouveau mot de passe. Ce lien est valable une heure.';

export function PasswordRequestPage() {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const form = useZodForm(requestFormSchema, { initialValues: { mail: '' } });

  const submit = form.onSubmit(async ({ mail }) => {
    setError(null);
    try {
      await requestPasswordReset(mail);
    } catch (e) {
      // Only a request that never left the phone is worth saying; any answer reads the same.
      if ((await readFailure(e)).network) return setError(NETWORK_ERROR_MESSAGE);
    }
    setDone(true);
  });

  return (
    <AccountCard title="Mot de passe oublié">
      {done ? (
        <Alert color="green" role="status">
          {PASSWORD_REQUEST_DONE}
        </Alert>
      ) : (
        <>
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Text size="sm">Indiquez l’adresse mail de votre compte : vous recevrez un lien pour choisir un nouveau mot de passe.</Text>
          <form onSubmit={submit} noValidate>
            <Stack gap="sm">
              <TextInput label="Adresse mail" type="email" autoComplete="email" withAsterisk {...form.getInputProps('mail')} />
              <Button type="submit" loading={form.submitting} fullWidth>
                Envoyer
              </Button>
            </Stack>
          </form>
        </>
      )}
      <Anchor component={Link} to="/login" size="sm">
        Retour à la connexion
      </Anchor>
    </AccountCard>
  );
}
