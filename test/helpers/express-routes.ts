// The routes an Express router answers, read from the router itself (its
// sub-routers included), so that a test that walks them covers a route added
// later without being edited.
import type { Router } from 'express';

export interface RouteOf {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
}

export function routesOf(router: Router, prefix = ''): RouteOf[] {
  const routes: RouteOf[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all')
          routes.push({ method: method.toUpperCase(), path: `${prefix}${layer.route.path}` });
    } else if (layer.handle?.stack) {
      const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
      routes.push(...routesOf(layer.handle as unknown as Router, `${prefix}${mount}`));
    }
  }
  return routes;
}
