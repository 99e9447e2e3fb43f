// /reset/:token (the forgotten-password link): checks the link first, then asks for the new
// password. An unusable link or a refused update both end on 'Compte introuvable'.
import { useState } from 'react';
import { Alert, Anchor, Button, Center, Loader, PasswordInput, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { Link, useNavigate, useParams } from 'react-router';
import { passwordUpdateSchema } from '../../../shared/schemas/account';
import { MESSAGES } from '../../../shared/errors';
import { PageMessage } from '../../components/page-message';
import { readFailure } from '../../lib/api';
import { useZodForm } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { AccountCard } from './account-card';
import { resetTokenQuery, updatePassword } from './account.api';

export const PASSWORD_CHANGED = 'Mot de passe modifié : vous pouvez vous connecter.';

function NotFound() {
  return (
    <PageMessage
      title="Compte introuvable"
      color="red"
      actions={
        <Anchor component={Link} to="/password">
          Demander un nouveau lien
        </Anchor>
      }
    >
      Ce lien est invalide, expiré ou a déjà été utilisé.
    </PageMessage>
  );
}

export function PasswordResetPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const check = useQuery(resetTokenQuery(token));
  const [refused, setRefused] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);
  const form = useZodForm(passwordUpdateSchema, { initialValues: { password: '', confirmPassword: '' } });

  const submit = form.onSubmit(
    async (values) => {
      setBanner(null);
      try {
        await updatePassword(token, values);
        notifySuccess(PASSWORD_CHANGED);
        void navigate('/login', { replace: true });
      } catch (e) {
        const failure = await readFailure(e);
        if (failure.network) return notifyError();
        const unmatched = form.setServerErrors(failure.errors);
        if (failure.status === 400 && failure.errors.length > 0 && unmatched.length === 0) setBanner(MESSAGES.required);
        else setRefused(true);
      }
    },
    () => setBanner(MESSAGES.required),
  );

  if (check.isPending) {
    return (
      <Center py="xl" role="status" aria-label="Vérification du lien">
        <Loader />
      </Center>
    );
  }
  if (check.isError && !(check.error instanceof HTTPError)) {
    return (
      <PageMessage title="Une erreur est survenue." color="red" actions={<Button onClick={() => void check.refetch()}>Réessayer</Button>}>
        Le lien n’a pas pu être vérifié. Vérifiez votre connexion puis réessayez.
      </PageMessage>
    );
  }
  if (check.isError || refused) return <NotFound />;

  return (
    <AccountCard title="Modification du mot de passe">
      {banner && (
        <Alert color="red" role="alert">
          {banner}
        </Alert>
      )}
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <PasswordInput label="Nouveau mot de passe" description="8 caractères au moins" withAsterisk autoComplete="new-password" {...form.getInputProps('password')} />
          <PasswordInput label="Confirmation du mot de passe" withAsterisk autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
          <Button type="submit" loading={form.submitting} fullWidth>
            Enregistrer
          </Button>
        </Stack>
      </form>
    </AccountCard>
  );
}
