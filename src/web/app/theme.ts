// The Mantine theme: green, with every text colour at 4.5:1 or more on white (WCAG 2.2 AA).
//
// Mantine's stock shades are too light for small text: white on green.6 is 2.4:1 and the
// 'light' variants (shade 9 on shade 1) of green, orange, teal and yellow stay under 4.5:1.
// Filled components here use shade 8 (primaryShade), and the palettes below darken shades
// 6 to 9 where the stock ones fall short, so that:
//   - white on shade 8 (filled buttons, badges, active page) is 5:1 or more;
//   - shade 9 on shade 1 (light buttons, badges, alerts) is 5.5:1 or more;
//   - shade 8 text on white or on the gray.0 table stripes is 4.7:1 or more.
// red.6 is Mantine's colour of field errors (stock #fa5252: 3.3:1), now 5:1.
// gray.6 is Mantine's 'dimmed' text and mantine-datatable's empty-state text; the stock
// #868e96 is 3.3:1 on white, the one below 6:1 (5.5:1 on the gray.1 row hover).
// Ratios computed with the WCAG relative-luminance formula (shell-parts.test.tsx checks them,
// axe checks the screens in the journeys).
// Every dialog's and toast's close button is named 'Fermer' (Mantine's is an unnamed icon),
// with plain default props so that the theme pulls no component code into the first chunk.
import { createTheme, type MantineColorsTuple } from '@mantine/core';

const CLOSE = { closeButtonProps: { 'aria-label': 'Fermer' } };

const green: MantineColorsTuple = ['#ebfbee', '#d3f9d8', '#b2f2bb', '#8ce99a', '#69db7c', '#51cf66', '#37a24b', '#2b8a3e', '#237536', '#1b5e2b'];
const orange: MantineColorsTuple = ['#fff4e6', '#ffe8cc', '#ffd8a8', '#ffc078', '#ffa94d', '#ff922b', '#f76707', '#d9480f', '#b8400e', '#96350c'];
const teal: MantineColorsTuple = ['#e6fcf5', '#c3fae8', '#96f2d7', '#63e6be', '#38d9a9', '#20c997', '#0ca678', '#099268', '#087357', '#065c46'];
const yellow: MantineColorsTuple = ['#fff9db', '#fff3bf', '#ffec99', '#ffe066', '#ffd43b', '#fcc419', '#f59f00', '#d98200', '#a35f00', '#7f4a00'];
const red: MantineColorsTuple = ['#fff5f5', '#ffe3e3', '#ffc9c9', '#ffa8a8', '#ff8787', '#ff6b6b', '#d42d2d', '#c92a2a', '#b82626', '#a12121'];
const gray: MantineColorsTuple = ['#f8f9fa', '#f1f3f5', '#e9ecef', '#dee2e6', '#ced4da', '#adb5bd', '#5c636a', '#495057', '#343a40', '#212529'];

export const theme = createTheme({
  primaryColor: 'green',
  primaryShade: { light: 8, dark: 8 },
  colors: { green, orange, teal, yellow, red, gray },
  components: {
    Modal: { defaultProps: CLOSE },
    Notification: { defaultProps: CLOSE },
  },
});
