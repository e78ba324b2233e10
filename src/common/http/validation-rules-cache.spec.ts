import { getMetadataStorage, IsInt, IsString, Min, validateSync } from 'class-validator';
import { cacheValidationRuleLookups } from './validation-rules-cache';

const failed = (object: object) =>
  validateSync(object, { whitelist: true, forbidNonWhitelisted: true })
    .map((e) => `${e.property}:${Object.keys(e.constraints ?? {}).sort().join(',')}`)
    .sort();

class Parent {
  @IsString()
  name!: unknown;
}

describe('cacheValidationRuleLookups', () => {
  beforeAll(() => cacheValidationRuleLookups());

  it('answers a repeated lookup with the same rules, without looking again', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Parent, '', false, false);
    const second = storage.getTargetValidationMetadatas(Parent, '', false, false);
    expect(second).toBe(first);
    expect(first.map((m) => m.propertyName)).toEqual(['name']);
    expect(storage.groupByPropertyName(second)).toBe(storage.groupByPropertyName(first));
  });

  it('judges exactly as before: own and inherited rules, unknown fields refused', () => {
    const child = Object.assign(new (class Child extends Parent {})(), { name: 3, extra: 1 });
    expect(failed(child)).toEqual(['extra:whitelistValidation', 'name:isString']);
    expect(failed(Object.assign(new Parent(), { name: 'ok' }))).toEqual([]);
  });

  it('sees a rule registered after a lookup: a class loaded later, and a rule added to a known class', () => {
    const before = Object.assign(new Parent(), { name: 'ok', age: -1 });
    expect(failed(before)).toEqual(['age:whitelistValidation']);

    class Later extends Parent {
      @IsInt()
      @Min(0)
      age!: unknown;
    }
    expect(failed(Object.assign(new Later(), { name: 1, age: -1 }))).toEqual(['age:min', 'name:isString']);

    // A decorator applied by hand to the class already looked up: its next lookup has the new rule.
    Min(5)(Parent.prototype, 'name');
    IsInt()(Parent.prototype, 'name');
    expect(failed(Object.assign(new Parent(), { name: 'x' }))).toEqual(['name:isInt,min']);
  });

  it('installs once, whatever the number of calls', () => {
    const storage = getMetadataStorage();
    const lookup = storage.getTargetValidationMetadatas;
    cacheValidationRuleLookups();
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });
});
