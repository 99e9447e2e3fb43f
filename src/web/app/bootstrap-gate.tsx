// Full-screen loader until the session, the action types and (for everyone but a plain
// referent) the active sites are loaded (loadsAllActiveSites of shared/permissions.ts); then the app.
import type { ReactNode } from 'react';
import { Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { loadsAllActiveSites } from '../../shared/permissions';
import { FullScreenLoader } from '../components/full-screen-loader';
import { PageMessage } from '../components/page-message';
import { activeSitesQuery, loggedQuery, typeActionsQuery } from '../session/bootstrap.api';
import { useSessionStore } from '../session/session-store';

export function BootstrapGate({ children }: { children: ReactNode }) {
  const logged = useQuery(loggedQuery());
  const session = useSessionStore();
  const typeActions = useQuery({ ...typeActionsQuery(), enabled: session.fetched });
  const needsSites = session.logged && session.id !== null && loadsAllActiveSites(session.roles);
  const sites = useQuery({ ...activeSitesQuery(session.id ?? 0), enabled: needsSites });

  const failed = logged.isError || typeActions.isError || (needsSites && sites.isError);
  if (failed) {
    return (
      <PageMessage
        title="Chargement impossible"
        color="red"
        actions={
          <Button
            onClick={() => {
              if (logged.isError) void logged.refetch();
              if (typeActions.isError) void typeActions.refetch();
              if (sites.isError) void sites.refetch();
            }}
          >
            Réessayer
          </Button>
        }
      >
        {session.error ?? 'Les données de l’application n’ont pas pu être chargées. Vérifiez votre connexion puis réessayez.'}
      </PageMessage>
    );
  }
  if (!session.fetched || typeActions.isPending || (needsSites && sites.isPending)) return <FullScreenLoader />;
  return children;
}
