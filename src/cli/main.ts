/**
 * The command line: `generate`, `diff`, `validate`, `inspect`, `init`. Parses flags, calls the
 * pipeline, prints, and maps the outcome to an exit code. Anything thrown here is a bug.
 */
import { Command, CommanderError, Option } from 'commander';
import { ExitCode } from './exit-codes.js';
import { processIo, type Io, type OutputFormat } from './output.js';
import { SVCGEN_VERSION } from '../version.js';

export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors with 2.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    io.stderr(
      `svcgen: internal error — this is a bug in svcgen. Please report it with the input that caused it.\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return ExitCode.internal;
  }
}

/** Settles on Ctrl-C (SIGINT) or SIGTERM: how a watch ends, with exit code 0. */
function interrupted(): Promise<string> {
  return new Promise((settle) => {
    process.once('SIGINT', settle);
    process.once('SIGTERM', settle);
  });
}

const formatOption = () =>
  new Option('--format <format>', 'diagnostics as text (with code frames) or json')
    .choices(['text', 'json'])
    .default('text');

function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('svcgen')
    .description('Generate a standalone TypeScript REST service from a RAML 0.8 API description and its JSON schemas.')
    .version(SVCGEN_VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run `svcgen --help` for usage)');

  program
    .command('generate')
    .description('generate the service project into <out-dir>')
    .argument('<api.raml>', 'the RAML 0.8 file')
    .requiredOption('-o, --out <out-dir>', 'where to write the project')
    .option('--check', 'do not write; exit 1 if the output is out of date (for CI)')
    .option('--dry-run', 'print what would be added, changed or deleted, without writing')
    .option('--force', 'overwrite generated files even if they were edited')
    .option(
      '--allow-data-loss',
      'let the new migration drop what the API no longer has (removed models and fields) and narrow types (a stored value that does not fit then fails the migration, which names the rows to change)',
    )
    .option(
      '--allow-breaking',
      'let the new version of the API break its clients (removed routes or fields, narrower types…); the changes are recorded in <out-dir>/API-CHANGES.md',
    )
    .option('--release <name>', 'the title of the API-CHANGES.md entry this run adds (default: Unreleased)')
    .addOption(
      new Option(
        '--watch',
        'generate again whenever the RAML or a file it includes changes (Ctrl-C to stop)',
      ).conflicts(['check', 'dryRun']),
    )
    .addOption(formatOption())
    .action(
      async (
        file: string,
        opts: {
          out: string;
          check?: boolean;
          dryRun?: boolean;
          force?: boolean;
          allowDataLoss?: boolean;
          allowBreaking?: boolean;
          release?: string;
          watch?: boolean;
          format: OutputFormat;
        },
      ) => {
        // Each command is loaded when it runs: `validate` never loads the generator (handlebars,
        // json-schema-to-typescript), nor `generate` the TCK printer.
        if (opts.watch) {
          const { runWatch } = await import('./commands/watch.js');
          setExit(await runWatch(io, file, opts, interrupted()));
        } else {
          const { runGenerate } = await import('./commands/generate.js');
          setExit(await runGenerate(io, file, opts));
        }
      },
    );

  program
    .command('diff')
    .description(
      'list what changes for clients between two versions of the API (each an api.raml or an openapi.json); exit 1 if anything breaks them, once released (an older version 0 or 0.x is pre-release: exit 0 unless --strict)',
    )
    .argument('<old>', 'the earlier version: an api.raml or an openapi.json')
    .argument('<new>', 'the later version: an api.raml or an openapi.json')
    .addOption(
      new Option('--format <format>', 'the changes as text or as a JSON array')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--strict', 'exit 1 on a breaking change before release too (version 0 or 0.x)')
    .action(async (before: string, after: string, opts: { format: OutputFormat; strict?: boolean }) => {
      const { runDiff } = await import('./commands/diff.js');
      setExit(runDiff(io, before, after, opts));
    });

  program
    .command('validate')
    .description(
      'check the API description and print every problem found (what a change does to an existing project: generate --check)',
    )
    .argument('<api.raml>', 'the RAML 0.8 file')
    .addOption(formatOption())
    .action(async (file: string, opts: { format: OutputFormat }) => {
      const { runValidate } = await import('./commands/validate.js');
      setExit(runValidate(io, file, opts));
    });

  program
    .command('inspect')
    .description('print an intermediate form (JSON), the ACL matrix (text) or the OpenAPI document (JSON) on stdout')
    .argument('<api.raml>', 'the RAML 0.8 file')
    .addOption(
      new Option('--ir', 'the service model (models, routes, auth, ACLs, handlers)').conflicts([
        'tck',
        'acl',
        'openapi',
      ]),
    )
    .addOption(
      new Option('--tck', 'the expanded RAML in the JSON shape of the RAML 0.8 TCK').conflicts(['acl', 'openapi']),
    )
    .addOption(
      new Option('--acl', 'who may use each route when auth = true (anonymous, member, owner, admin)').conflicts(
        'openapi',
      ),
    )
    .addOption(new Option('--openapi', 'the OpenAPI 3.1 document of the generated service (its openapi.json)'))
    .action(async (file: string, opts: { ir?: boolean; tck?: boolean; acl?: boolean; openapi?: boolean }) => {
      if (!opts.ir && !opts.tck && !opts.acl && !opts.openapi) {
        io.stderr('svcgen inspect: choose what to print: --ir, --tck, --acl or --openapi\n');
        setExit(ExitCode.usage);
        return;
      }
      const { runInspect } = await import('./commands/inspect.js');
      setExit(runInspect(io, file, opts.tck ? 'tck' : opts.acl ? 'acl' : opts.openapi ? 'openapi' : 'ir'));
    });

  program
    .command('init')
    .description(
      'write a small working API (api.raml, schemas, a README saying what to edit) into [dir], a new or empty folder',
    )
    .argument('[dir]', 'where to write it', '.')
    .action(async (dir: string) => {
      const { runInit } = await import('./commands/init.js');
      setExit(runInit(io, dir));
    });

  return program;
}
