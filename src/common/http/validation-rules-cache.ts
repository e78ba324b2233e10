import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type ValidationMetadata = ReturnType<Lookup>[number];

const INSTALLED = Symbol.for('mess.validation-rules-cache');

/**
 * class-validator finds a DTO's rules anew on every validation: it filters the DTO's own rules and walks every class
 * that has rules (`instanceof` against each, a few hundred here) for the ones it inherits, then groups them by
 * property. That lookup was the largest single cost of an authenticated read in `npm run bench:cost` (class-validator
 * 7 % of the service's CPU, most of it this walk). The rules are fixed once the DTO classes are loaded, so each
 * lookup's answer (and its grouping) is kept; registering any rule afterwards drops them all, so a class loaded later
 * is never judged by an old answer. Idempotent: the storage is class-validator's global one.
 */
export function cacheValidationRuleLookups(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;

  let answers = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const forget = () => {
    answers = new Map();
    grouped = new WeakMap();
  };

  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let byOptions = answers.get(target);
    if (!byOptions) answers.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };

  const group = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) grouped.set(metadata, (found = group(metadata)));
    return found;
  };

  for (const name of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema'] as const) {
    const add = storage[name].bind(storage) as (argument: never) => void;
    (storage[name] as (argument: never) => void) = (argument: never) => {
      forget();
      add(argument);
    };
  }
}
