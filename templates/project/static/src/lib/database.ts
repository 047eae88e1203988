/** The storage the service runs on, whatever the engine (contract §2: chosen in service.ini). */
import type { Model, ModelRegistry } from './model.js';
import type { Repository, Where } from './repository.js';

type Rec = Record<string, unknown>;

/** A repository plus what the HTTP layer needs to address objects by key. */
export interface EngineRepository<T = Rec, Create = Partial<T>, Update = Partial<T>> extends Repository<
  T,
  Create,
  Update
> {
  readonly model: Model<T>;
  /** The key as the database compares it; undefined when it cannot be one (`abc` for an integer key). */
  keyValue(key: unknown): unknown;
  /** The keys of the objects that match, in key order. */
  keys(where?: Where<T>): Promise<unknown[]>;
  /**
   * Inside a transaction: no other transaction changes the object until this one ends (read it
   * after this, to change it from what it is now).
   */
  lockForUpdate(key: unknown): Promise<void>;
}

/** Makes the repository of a model on one engine (and, inside a transaction, bound to it). */
export interface Engine {
  repository<T extends object, Create, Update>(model: Model<T>): EngineRepository<T, Create, Update>;
}

/** The typed repositories of every model (src/db/index.ts), made on an engine. */
export type RepositoryFactory<R> = (engine: Engine) => R;

/** `R`: the typed repositories the generated `Database` adds, also inside transactions. */
export interface ServiceDatabase<R = unknown> {
  readonly engine: 'svc_sqla' | 'svc_mongodb';
  readonly models: ModelRegistry;
  repository(model: string): EngineRepository;
  /** Runs `work` in one transaction; `work` gets the database bound to it. */
  transaction<T>(work: (db: ServiceDatabase<R> & R) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** `ServiceDatabase.repository(name)` over the typed repositories an engine made. */
export function repositoryByName(repositories: object): (model: string) => EngineRepository {
  const byModel = new Map((Object.values(repositories) as EngineRepository[]).map((r) => [r.model.name, r]));
  return (model) => {
    const repository = byModel.get(model);
    if (!repository) throw new Error(`no repository for model ${model}`);
    return repository;
  };
}
