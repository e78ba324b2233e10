import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- Reflector's own type for a route's targets
type Target = Function;

/**
 * Nest's `Reflector`, keeping what `getAllAndOverride(key, [handler, controller])` found for each route. Guards ask
 * it on every request (public? which permission? own records only? the throttler's five per limit), and each answer
 * walks `reflect-metadata`'s maps anew, though decorators set route metadata once, when the classes load (`npm run
 * bench:cost`: ~1.5 % of an authenticated read's CPU). Any other form of lookup is Reflector's own.
 */
@Injectable()
export class RouteMetadata extends Reflector {
  private readonly found = new WeakMap<Target, Map<Target, Map<unknown, unknown>>>();

  override getAllAndOverride<TResult = unknown, TKey = unknown>(key: TKey, targets: Target[]): TResult {
    if (targets.length !== 2) return super.getAllAndOverride<TResult, TKey>(key, targets);
    const [handler, controller] = targets;
    let byController = this.found.get(handler);
    if (!byController) this.found.set(handler, (byController = new Map()));
    let byKey = byController.get(controller);
    if (!byKey) byController.set(controller, (byKey = new Map()));
    if (!byKey.has(key)) byKey.set(key, super.getAllAndOverride<TResult, TKey>(key, targets));
    return byKey.get(key) as TResult;
  }
}
