// Attempt counters of the login, signup, reset-link and token limits, in the
// database so that every server process counts against the same allowance. One row per
// (kind, key): a fixed window that starts at the first attempt and the attempts counted in it.
export const up = `
CREATE TABLE login_attempt (
  kind text NOT NULL,
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (kind, key)
);
-- Lets the periodic clean-up find the finished windows without reading the whole table.
CREATE INDEX login_attempt_window_start ON login_attempt (window_start);
`;
