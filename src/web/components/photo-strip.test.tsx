import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PhotoStrip } from './photo-strip';
import { PhotoThumbnails } from './photo-thumbnails';

afterEach(cleanup);

const show = (ui: ReactNode) => render(<MantineProvider>{ui}</MantineProvider>);

const PHOTOS = [1, 2, 3].map((n) => ({ key: String(n), thumbnail: `/t/${n}.jpg`, full: `/f/${n}.jpg`, alt: `Couvercle cassé, vue ${n}` }));

const viewer = () => screen.getByRole('dialog');
const shownSrc = () => within(viewer()).getByRole('img').getAttribute('src');

describe('photo strip and viewer', () => {
  it('shows the thumbnails as a named list, and nothing without photos', () => {
    show(<PhotoStrip photos={[]} label="Photos de l’action 1" />);
    expect(screen.queryByRole('list')).not.toBeInTheDocument();
    cleanup();
    show(<PhotoStrip photos={PHOTOS} label="Photos de l’action 1" />);
    const list = screen.getByRole('list', { name: 'Photos de l’action 1' });
    expect(within(list).getAllByRole('img').map((i) => i.getAttribute('src'))).toEqual(['/t/1.jpg', '/t/2.jpg', '/t/3.jpg']);
    expect(within(list).queryByRole('button', { name: /Retirer/ })).not.toBeInTheDocument();
  });

  it('opens the full photo of the thumbnail tapped, goes to the next and previous ones (buttons, keys, swipes) and closes', async () => {
    show(<PhotoStrip photos={PHOTOS} label="Photos" />);
    await userEvent.click(screen.getByRole('button', { name: 'Agrandir la photo 2 sur 3' }));
    expect(viewer()).toHaveAccessibleName('Photo 2 sur 3');
    expect(shownSrc()).toBe('/f/2.jpg');
    expect(within(viewer()).getByRole('img')).toHaveAccessibleName('Couvercle cassé, vue 2');

    await userEvent.click(screen.getByRole('button', { name: 'Photo suivante' }));
    expect(shownSrc()).toBe('/f/3.jpg');
    // After the last, the first.
    await userEvent.click(screen.getByRole('button', { name: 'Photo suivante' }));
    expect(shownSrc()).toBe('/f/1.jpg');
    await userEvent.keyboard('{ArrowLeft}');
    expect(shownSrc()).toBe('/f/3.jpg');

    // A thumb swiping right to left shows the next one; a vertical move or a short one does nothing.
    const swipe = (from: [number, number], to: [number, number]) => {
      const stage = within(viewer()).getByRole('img').parentElement!;
      fireEvent.pointerDown(stage, { clientX: from[0], clientY: from[1] });
      fireEvent.pointerUp(stage, { clientX: to[0], clientY: to[1] });
    };
    swipe([300, 400], [120, 410]);
    expect(shownSrc()).toBe('/f/1.jpg');
    swipe([100, 400], [130, 600]);
    swipe([100, 400], [130, 400]);
    expect(shownSrc()).toBe('/f/1.jpg');
    swipe([100, 400], [260, 400]);
    expect(shownSrc()).toBe('/f/3.jpg');

    await userEvent.click(screen.getByRole('button', { name: 'Fermer' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('says when the full photo cannot be loaded', async () => {
    show(<PhotoStrip photos={PHOTOS.slice(0, 1)} label="Photos" />);
    await userEvent.click(screen.getByRole('button', { name: 'Agrandir la photo 1 sur 1' }));
    expect(viewer()).toHaveAccessibleName('Photo');
    expect(screen.queryByRole('button', { name: 'Photo suivante' })).not.toBeInTheDocument();
    fireEvent.error(within(viewer()).getByRole('img'));
    expect(within(viewer()).getByRole('alert')).toHaveTextContent('La photo n’a pas pu être chargée.');
  });

  it('lets each photo be removed when the strip allows it', async () => {
    const remove = vi.fn();
    show(<PhotoStrip photos={PHOTOS} label="Photos" onRemove={remove} />);
    await userEvent.click(screen.getByRole('button', { name: 'Retirer la photo 2' }));
    expect(remove).toHaveBeenCalledWith(1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows bare thumbnails, each removable, when nothing is to be opened', async () => {
    const remove = vi.fn();
    show(<PhotoThumbnails photos={PHOTOS.slice(0, 2)} label="Photos de l’action 1" onRemove={remove} />);
    const list = screen.getByRole('list', { name: 'Photos de l’action 1' });
    expect(within(list).getAllByRole('img').map((i) => i.getAttribute('alt'))).toEqual(['Couvercle cassé, vue 1', 'Couvercle cassé, vue 2']);
    expect(within(list).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual(['Retirer la photo 1', 'Retirer la photo 2']);
    await userEvent.click(screen.getByRole('button', { name: 'Retirer la photo 1' }));
    expect(remove).toHaveBeenCalledWith(0);
  });
});
