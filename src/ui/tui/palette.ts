// The UI's colours as functions over strings, so NO_COLOR is one switch: every
// function is the identity without colour, and the layout stays the same.
export interface Palette {
  color: boolean;
  dim: (s: string) => string;
  bold: (s: string) => string;
  red: (s: string) => string;
  green: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
  inverse: (s: string) => string;
}

const sgr = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;

const id = (s: string) => s;

/** No escapes at all (the screen as plain text: tests, and layouts compared as text). */
export const bare: Palette = { color: false, dim: id, bold: id, red: id, green: id, yellow: id, cyan: id, inverse: id };

export function palette(env: NodeJS.ProcessEnv): Palette {
  // https://no-color.org: any non-empty NO_COLOR disables colour. Inverse video is not a
  // colour, and without it the prompt's cursor and the chosen completion would not show.
  if (env.NO_COLOR) return { ...bare, inverse: sgr(7, 27) };
  return {
    color: true,
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    inverse: sgr(7, 27),
  };
}
