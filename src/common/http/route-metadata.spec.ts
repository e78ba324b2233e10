import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadata } from './route-metadata';

const KEY = 'test:flag';

@SetMetadata(KEY, 'controller')
class Controller {
  @SetMetadata(KEY, 'handler')
  own() {}
  inherited() {}
}

describe('RouteMetadata', () => {
  const plain = new Reflector();

  it('answers as Reflector does: the handler first, else its controller, else undefined', () => {
    const cached = new RouteMetadata();
    for (const targets of [
      [Controller.prototype.own, Controller],
      [Controller.prototype.inherited, Controller],
      [Controller.prototype.own, Object],
    ]) {
      expect(cached.getAllAndOverride(KEY, targets)).toBe(plain.getAllAndOverride(KEY, targets));
      expect(cached.getAllAndOverride('test:none', targets)).toBeUndefined();
    }
    expect(cached.getAllAndOverride(KEY, [Controller.prototype.inherited, Controller])).toBe('controller');
  });

  it('reads each route and key once (route metadata is set when the classes load)', () => {
    const cached = new RouteMetadata();
    const targets = [Controller.prototype.own, Controller];
    const lookups = jest.spyOn(Reflect, 'getMetadata');
    cached.getAllAndOverride(KEY, targets);
    const first = lookups.mock.calls.length;
    cached.getAllAndOverride(KEY, targets);
    cached.getAllAndOverride(KEY, targets);
    expect(first).toBeGreaterThan(0);
    expect(lookups.mock.calls.length).toBe(first);
    lookups.mockRestore();
  });
});
