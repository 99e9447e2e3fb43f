// The name of the screen on display: the document's <title> ('Utilisateurs – Compost') and the
// page's one <h1>.
//
//   usePageTitle('Statistiques');              // the <title> only (the h1 is drawn elsewhere)
//   <PageTitle>Statistiques</PageTitle>        // the <h1> and the <title>
//
// DataTable's `title` and PageMessage's `title` are already the screen's h1 and <title>.
// The layout gives the application name (setAppName); until it is known, the page's own
// <title> (index.html) stands for it. When several mounted components name the screen, the
// outermost one wins (effects run children first), so a screen keeps its name over a message
// it shows; when the screen goes, the title falls back to the application name.
import { useEffect } from 'react';
import { Title, type TitleProps } from '@mantine/core';

const SEPARATOR = ' – ';

let appName = typeof document === 'undefined' ? '' : document.title;
let names: { id: number; name: string }[] = [];
let nextId = 0;

function apply() {
  if (typeof document === 'undefined') return;
  const screen = names.at(-1)?.name;
  const title = screen ? (appName ? `${screen}${SEPARATOR}${appName}` : screen) : appName;
  if (title) document.title = title;
}

/** The application name, from the app info (app-layout.tsx). */
export function setAppName(name: string) {
  if (!name || name === appName) return;
  appName = name;
  apply();
}

/** Names the screen in the document title while the calling component is mounted. */
export function usePageTitle(screen: string) {
  useEffect(() => {
    // An unnamed part (a table without a title, in a dialog) leaves the screen's name alone.
    if (!screen.trim()) return;
    const id = nextId++;
    names = [...names, { id, name: screen.trim() }];
    apply();
    return () => {
      names = names.filter((n) => n.id !== id);
      apply();
    };
  }, [screen]);
}

/** The screen's <h1>, which also names it in the document title. */
export function PageTitle({ children, ...props }: { children: string } & Omit<TitleProps, 'order' | 'children'>) {
  usePageTitle(children);
  return (
    <Title order={1} size="h2" {...props}>
      {children}
    </Title>
  );
}
