-- Schema for every entity of spec §3. Times are timestamptz; ids are bigint identity.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE exam_groups (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  code          text NOT NULL UNIQUE,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Everyone who logs in: testers (1), checkers (2), test managers (3), system managers (4), supervisors (5).
CREATE TABLE users (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  login_id        text NOT NULL UNIQUE,
  ex_login_id     text,
  password_hash   text NOT NULL,
  actor           smallint NOT NULL CHECK (actor BETWEEN 1 AND 5),
  name            text NOT NULL DEFAULT '',
  group_id        bigint REFERENCES exam_groups(id),
  target          text NOT NULL DEFAULT '',
  is_mc_startup   smallint NOT NULL DEFAULT 0,
  status          smallint NOT NULL DEFAULT 0,
  kicked          smallint NOT NULL DEFAULT 0,
  rejected        smallint NOT NULL DEFAULT 0,
  disabled        boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_actor_updated_idx ON users (actor, updated_at DESC, id DESC);
CREATE INDEX users_group_idx ON users (group_id);

-- Bearer tokens: only a SHA-256 of the random token is stored.
CREATE TABLE sessions (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash    bytea NOT NULL UNIQUE,
  ip            text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- Failed-login counters for the per-account soft lockout.
CREATE TABLE login_failures (
  login_id      text PRIMARY KEY,
  failures      integer NOT NULL DEFAULT 0,
  window_start  timestamptz NOT NULL DEFAULT now(),
  locked_until  timestamptz
);

-- One exam sitting of one examinee (test_id). tester_id in the contract is the examinee's user id.
CREATE TABLE tests (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id             bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id            bigint REFERENCES exam_groups(id),
  login_id            text NOT NULL,
  test_name           text NOT NULL DEFAULT '',
  region              text NOT NULL DEFAULT '',
  exam_name           text NOT NULL DEFAULT '',
  r_exam_name         text NOT NULL DEFAULT '',
  test_at             timestamptz,
  stop_at             timestamptz,
  status              smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 0 AND 7),
  test_status         smallint CHECK (test_status BETWEEN 0 AND 3),
  exam_process        smallint CHECK (exam_process BETWEEN 0 AND 4),
  is_mc_startup       smallint NOT NULL DEFAULT 0,
  term_set_code       text,
  eai                 text,
  startup_parameters  jsonb NOT NULL DEFAULT '{}'::jsonb,
  matched_at          timestamptz,
  authenticated_at    timestamptz,
  login_at            timestamptz,
  logout_at           timestamptz,
  rejected            smallint NOT NULL DEFAULT 0,
  kicked              smallint NOT NULL DEFAULT 0,
  ai_namematch        integer,
  head_shot_key       text,
  head_shot_at        timestamptz,
  id_card_key         text,
  id_card_at          timestamptz,
  pass                smallint,
  with_mark           boolean NOT NULL DEFAULT false,
  record              boolean NOT NULL DEFAULT false,
  cheating_level      integer NOT NULL DEFAULT 0,
  total_score         integer NOT NULL DEFAULT 0,
  ai_total_score      integer NOT NULL DEFAULT 0,
  ai_analysis_flag    smallint NOT NULL DEFAULT 0,
  ai_analysis_batch_flag smallint NOT NULL DEFAULT 0,
  memo                text NOT NULL DEFAULT '',
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
-- Search (spec §2): by group and date, sorted by date; fuzzy name; login id; flags.
CREATE INDEX tests_group_test_at_idx ON tests (group_id, test_at DESC, id DESC);
CREATE INDEX tests_test_at_idx ON tests (test_at DESC, id DESC);
CREATE INDEX tests_user_idx ON tests (user_id, id DESC);
CREATE INDEX tests_login_id_idx ON tests (login_id);
CREATE INDEX tests_exam_name_trgm_idx ON tests USING gin (exam_name gin_trgm_ops);
CREATE INDEX tests_test_name_idx ON tests (test_name);
CREATE INDEX tests_region_idx ON tests (region);
CREATE INDEX tests_score_idx ON tests (total_score DESC, id DESC);

-- Examinee log events of spec §4: login, matched, authenticated, exam_start, exam_end, logout.
CREATE TABLE examinee_logs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  event       text NOT NULL,
  detail      text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX examinee_logs_test_idx ON examinee_logs (test_id, created_at);

-- Checker availability (tester/monitor_activate).
CREATE TABLE monitor_activations (
  checker_id  bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  activation  boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Matching of spec §3: -1 invalid, 0 none, 1 waiting, 2 connected.
CREATE TABLE matchings (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id             bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  tester_id           bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  checker_id          bigint REFERENCES users(id) ON DELETE SET NULL,
  matching_status     smallint NOT NULL DEFAULT 1 CHECK (matching_status BETWEEN -1 AND 2),
  channel_name        text NOT NULL,
  channel_status      text NOT NULL DEFAULT 'close',
  file_name           text NOT NULL DEFAULT '',
  matching_command    smallint NOT NULL DEFAULT 0,
  tester_retry        integer NOT NULL DEFAULT 0,
  checker_retry       integer NOT NULL DEFAULT 0,
  last_tester_poll_at timestamptz,
  last_checker_poll_at timestamptz,
  connected_at        timestamptz,
  total_time_seconds  integer NOT NULL DEFAULT 0,
  connected_seconds   integer NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  deleted_at          timestamptz
);
CREATE UNIQUE INDEX matchings_active_tester_idx ON matchings (tester_id) WHERE deleted_at IS NULL;
CREATE INDEX matchings_active_checker_idx ON matchings (checker_id) WHERE deleted_at IS NULL;
CREATE INDEX matchings_test_idx ON matchings (test_id, created_at);

-- Chat and signalling markers (spec §3 "WebRTC message").
CREATE TABLE messages (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id       bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  tester_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  checker_id    bigint REFERENCES users(id) ON DELETE SET NULL,
  send_type     smallint NOT NULL CHECK (send_type IN (0, 1)),
  message_type  smallint NOT NULL CHECK (message_type IN (1, 2, 3)),
  kind          text NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'command')),
  message       text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_test_idx ON messages (test_id, id DESC);

CREATE TABLE marks (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message   text NOT NULL,
  label     text NOT NULL DEFAULT '',
  order_id  integer NOT NULL DEFAULT 0,
  display   smallint NOT NULL DEFAULT 1,
  score     integer NOT NULL DEFAULT 0,
  reason_code smallint
);

CREATE TABLE fixed_notifications (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message   text NOT NULL,
  order_id  integer NOT NULL DEFAULT 0
);

-- Recordings (spec §3 "Record"; status codes 00–08 of spec §4).
CREATE TABLE records (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id             bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  tester_id           bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  bucket              text NOT NULL,
  object_key          text NOT NULL,
  upload_id           text,
  mime_type           text NOT NULL DEFAULT 'video/webm',
  segment             integer NOT NULL DEFAULT 1,
  start_at            timestamptz NOT NULL DEFAULT now(),
  stop_at             timestamptz,
  encoded_at          timestamptz,
  size_bytes          bigint,
  duration_ms         bigint,
  movie_status        char(2) NOT NULL DEFAULT '00',
  ai_analysis_flag    smallint NOT NULL DEFAULT 0,
  ai_analysis_batch_flag smallint NOT NULL DEFAULT 0,
  ai_analysis_reflected_at timestamptz,
  ai_analysis_batch_reflected_at timestamptz,
  detail              text NOT NULL DEFAULT '',
  play_time_from      integer,
  play_time_to        integer,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX records_test_idx ON records (test_id, start_at);

CREATE TABLE record_parts (
  record_id     bigint NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  part_number   integer NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
  etag          text NOT NULL,
  size_bytes    bigint NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (record_id, part_number)
);

CREATE TABLE record_status_logs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  record_id   bigint NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  movie_status char(2) NOT NULL,
  detail      text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Markings by checkers (spec §3 "Marking").
CREATE TABLE markings (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id       bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  tester_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  checker_id    bigint REFERENCES users(id) ON DELETE SET NULL,
  mark_id       bigint REFERENCES marks(id),
  image_key     text,
  content_type  text,
  time_lag      integer NOT NULL DEFAULT 0,
  notification  smallint NOT NULL DEFAULT 0,
  record_id     bigint REFERENCES records(id) ON DELETE SET NULL,
  marking_at    timestamptz NOT NULL DEFAULT now(),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX markings_test_idx ON markings (test_id, marking_at);
CREATE INDEX markings_mark_idx ON markings (mark_id);

-- AI markings from recording analysis (eye_rot, other_person, people_num, voice).
CREATE TABLE ai_markings (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id       bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  record_id     bigint REFERENCES records(id) ON DELETE CASCADE,
  analysis_type text NOT NULL CHECK (analysis_type IN ('eye_rot', 'other_person', 'people_num', 'voice')),
  score         integer NOT NULL DEFAULT 0,
  confidence    real NOT NULL DEFAULT 0,
  start_ms      bigint NOT NULL,
  end_ms        bigint NOT NULL,
  image_key     text,
  marking_at    timestamptz NOT NULL DEFAULT now(),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ai_markings_test_idx ON ai_markings (test_id, start_ms);

-- AI identity check state per sitting, and every attempt with its scores.
CREATE TABLE ai_auth (
  test_id       bigint PRIMARY KEY REFERENCES tests(id) ON DELETE CASCADE,
  status        smallint NOT NULL DEFAULT 0,
  process       smallint NOT NULL DEFAULT 0,
  face_retry    integer NOT NULL DEFAULT 0,
  id_card_retry integer NOT NULL DEFAULT 0,
  ai_all_retry  integer NOT NULL DEFAULT 0,
  face_key      text,
  id_card_key   text,
  messages      jsonb NOT NULL DEFAULT '[]'::jsonb,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ai_auth_attempts (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('face', 'id_card', 'name_match')),
  outcome     text NOT NULL,
  scores      jsonb NOT NULL DEFAULT '{}'::jsonb,
  image_key   text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- IP access limits (spec §3): only actors 2–5 may be targets.
CREATE TABLE access_limits (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  server      text NOT NULL DEFAULT '',
  ip          text,
  domain      text,
  actor       smallint NOT NULL CHECK (actor BETWEEN 2 AND 5),
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK ((ip IS NULL) <> (domain IS NULL))
);
CREATE INDEX access_limits_actor_idx ON access_limits (actor);

-- Retention (cleaner) settings. group_id -1 system log, -2 monitor history, -3 default; others are exam groups.
CREATE TABLE cleaner_settings (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  group_id    bigint NOT NULL UNIQUE,
  duration    integer NOT NULL CHECK (duration BETWEEN 1 AND 36500),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE short_urls (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor       smallint NOT NULL CHECK (actor BETWEEN 1 AND 5),
  target      text NOT NULL DEFAULT '',
  url_key     text NOT NULL UNIQUE,
  param       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE analysis_requests (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inseq       text NOT NULL,
  status      text NOT NULL DEFAULT 'queued',
  env         text NOT NULL DEFAULT '',
  method      smallint NOT NULL DEFAULT 1,
  result      text NOT NULL DEFAULT '',
  created_by  bigint REFERENCES users(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE analysis_request_tests (
  request_id  bigint NOT NULL REFERENCES analysis_requests(id) ON DELETE CASCADE,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  status      text NOT NULL DEFAULT 'queued',
  attempts    integer NOT NULL DEFAULT 0,
  error       text NOT NULL DEFAULT '',
  PRIMARY KEY (request_id, test_id)
);

-- Templates: terms of service, privacy policy, inquiry (footer URL or body), examining and env-setting terms.
CREATE TABLE templates (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('terms_of_service', 'privacy_policy', 'inquiry', 'examining_term', 'env_setting_term')),
  template_id integer NOT NULL,
  lang        text NOT NULL DEFAULT 'ja',
  title       text NOT NULL DEFAULT '',
  body        text NOT NULL DEFAULT '',
  footer_url  text NOT NULL DEFAULT '',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, template_id, lang)
);

-- Client logs (log_receive), device logs, and the server's audit trail (hash-chained, append-only).
CREATE TABLE logs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source      text NOT NULL CHECK (source IN ('client', 'device', 'audit', 'server')),
  level       text NOT NULL DEFAULT 'info',
  type        text NOT NULL DEFAULT '',
  path        text NOT NULL DEFAULT '',
  module      text NOT NULL DEFAULT '',
  location    text NOT NULL DEFAULT '',
  details     text NOT NULL DEFAULT '',
  tag1        text NOT NULL DEFAULT '',
  user_id     bigint,
  login_id    text,
  actor       smallint,
  ip          text,
  client_ts   text,
  prev_hash   text,
  hash        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX logs_created_idx ON logs (created_at DESC, id DESC);
CREATE INDEX logs_source_created_idx ON logs (source, created_at DESC);
CREATE INDEX logs_login_id_idx ON logs (login_id, created_at DESC);
