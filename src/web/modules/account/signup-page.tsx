// /signup ('Inscription', with the forms' input rules). Validated on the client with the server's
// own signupSchema; the server's per-field errors land under the same fields.
import { useState } from 'react';
import { Alert, Anchor, Button, PasswordInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatNom, formatPrenom, formatTel, signupSchema } from '../../../shared/schemas/account';
import { TYPE_USER } from '../../../shared/domain';
import { MESSAGES } from '../../../shared/errors';
import { NETWORK_ERROR_MESSAGE, readFailure } from '../../lib/api';
import { useZodForm } from '../../lib/form';
import { AccountCard } from './account-card';
import { signup, typeUsersQuery } from './account.api';


/** The organisation type, as the type select holds it. */
const ORGANISATION_TYPE = String(TYPE_USER.organisme);

export const SIGNUP_DONE_MESSAGE = 'Un mail de confirmation vous sera envoyé une fois le compte validé';

export function SignupPage() {
  const typeUsers = useQuery(typeUsersQuery());
  const [banner, setBanner] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useZodForm(signupSchema, {
    initialValues: { type: null as string | null, organisme: '', nom: '', prenom: '', tel: '', email: '', password: '', confirmPassword: '' },
    blankAsMissing: ['type'],
  });
  const isOrganisation = form.values.type === ORGANISATION_TYPE;

  const submit = form.onSubmit(
    async (payload) => {
      setBanner(null);
      try {
        await signup({ ...payload, organisme: payload.type === TYPE_USER.organisme ? payload.organisme : '' });
        setSentTo(payload.email);
      } catch (e) {
        const failure = await readFailure(e);
        if (failure.network) return setBanner(NETWORK_ERROR_MESSAGE);
        const unmatched = form.setServerErrors(failure.errors);
        if (failure.errors.length > 0 && unmatched.length === 0) setBanner(MESSAGES.required);
        else setBanner(unmatched[0]?.error ?? failure.message ?? 'Une erreur est survenue.');
      }
    },
    () => setBanner(MESSAGES.required),
  );

  if (sentTo) {
    return (
      <AccountCard title="Compte créé">
        <Alert color="green" role="status">
          {SIGNUP_DONE_MESSAGE}
        </Alert>
        <Text>
          Un mail de validation a été envoyé à {sentTo} : cliquez sur son lien pour valider votre adresse. Un administrateur activera
          ensuite votre compte.
        </Text>
        <Anchor component={Link} to="/login">
          Retour à la connexion
        </Anchor>
      </AccountCard>
    );
  }

  return (
    <AccountCard title="Créer un compte">
      {banner && (
        <Alert color="red" role="alert">
          {banner}
        </Alert>
      )}
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Select
            label="Type d’utilisateur"
            placeholder={typeUsers.isPending ? 'Chargement…' : 'Choisir un type'}
            data={(typeUsers.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle }))}
            disabled={typeUsers.isPending}
            withAsterisk
            allowDeselect={false}
            {...form.getInputProps('type')}
            error={form.errors.type ?? (typeUsers.isError ? 'Les types d’utilisateur n’ont pas pu être chargés' : undefined)}
            onChange={(value) => {
              form.setFieldValue('type', value);
              if (value !== ORGANISATION_TYPE) form.setFieldValue('organisme', '');
            }}
          />
          {isOrganisation && <TextInput label="Organisme" withAsterisk autoComplete="organization" {...form.getInputProps('organisme')} />}
          <TextInput
            label="Nom"
            withAsterisk
            autoComplete="family-name"
            {...form.getInputProps('nom')}
            onChange={(e) => form.setFieldValue('nom', formatNom(e.currentTarget.value))}
          />
          <TextInput
            label="Prénom"
            withAsterisk={!isOrganisation}
            autoComplete="given-name"
            {...form.getInputProps('prenom')}
            onChange={(e) => form.setFieldValue('prenom', formatPrenom(e.currentTarget.value))}
          />
          <TextInput
            label="Téléphone"
            withAsterisk
            type="tel"
            inputMode="numeric"
            autoComplete="tel"
            {...form.getInputProps('tel')}
            onChange={(e) => form.setFieldValue('tel', formatTel(e.currentTarget.value))}
          />
          <TextInput label="Adresse mail" withAsterisk type="email" autoComplete="email" {...form.getInputProps('email')} />
          <PasswordInput label="Mot de passe" description="8 caractères au moins" withAsterisk autoComplete="new-password" {...form.getInputProps('password')} />
          <PasswordInput label="Confirmation du mot de passe" withAsterisk autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
          <Button type="submit" loading={form.submitting} fullWidth mt="xs">
            Créer mon compte
          </Button>
        </Stack>
      </form>
      <Anchor component={Link} to="/login" size="sm">
        Retour à la connexion
      </Anchor>
    </AccountCard>
  );
}
