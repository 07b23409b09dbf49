/**
 * ProcessLauncher on node:child_process: output appended to a log file through an inherited file
 * descriptor (so it keeps flowing even while the supervisor is busy), stop by PID with SIGTERM
 * then SIGKILL.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  LaunchedProcess,
  LaunchOptions,
  ProcessExit,
  ProcessLauncher,
} from '../ports/process-launcher.js';

const DefaultGraceMs = 10_000;

/** `baseEnv`: the environment under `LaunchOptions.env` (the composition root passes its own). */
export function createChildProcessLauncher(
  baseEnv: Readonly<Record<string, string | undefined>> = {},
): ProcessLauncher {
  return {
    launch(argv: readonly string[], options: LaunchOptions): Promise<LaunchedProcess> {
      const [file, ...args] = argv;
      if (file === undefined) return Promise.reject(new Error('launch: empty argv'));
      mkdirSync(dirname(options.logFile), { recursive: true });
      const fd = openSync(options.logFile, 'a');
      return new Promise((resolve, reject) => {
        const child = spawn(file, args, {
          stdio: ['ignore', fd, fd],
          // Without any variables given the child inherits the supervisor's environment.
          ...(options.env === undefined && Object.keys(baseEnv).length === 0
            ? {}
            : { env: { ...baseEnv, ...options.env } }),
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        });
        let exit: ProcessExit | undefined;
        const exited = new Promise<ProcessExit>((done) => {
          child.once('exit', (code, signal) => {
            exit = { code, signal };
            done(exit);
          });
        });
        child.once('error', (e) => {
          closeSync(fd);
          reject(e);
        });
        child.once('spawn', () => {
          closeSync(fd);
          const pid = child.pid;
          if (pid === undefined) {
            reject(new Error(`${file} did not start`));
            return;
          }
          const running = () => exit === undefined;
          resolve({
            pid,
            exited,
            running,
            async stop(graceMs = DefaultGraceMs) {
              if (!running()) return exited;
              child.kill('SIGTERM');
              const timer = setTimeout(() => {
                if (running()) child.kill('SIGKILL');
              }, graceMs);
              const result = await exited;
              clearTimeout(timer);
              return result;
            },
          });
        });
      });
    },
  };
}
