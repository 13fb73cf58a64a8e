/**
 * `GET /api/v0/gpu_names/unique/`: the distinct GPU model names of the catalogue, the list clients
 * check a GPU name against before searching. The legacy CLI calls it first, and without a key:
 * the route is public (it has no permission scope in the service's route table).
 */
import { ok, type RouteDef } from '../router';

export const gpuNameRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/gpu_names/unique',
    category: null,
    action: 'api.gpu_names.unique',
    handler: (ctx) => {
      const names = [...new Set(ctx.sim.offers.map((o) => o.gpu_name))].sort((a, b) => a.localeCompare(b, 'en'));
      return ok({ success: true, gpu_names: names });
    },
  },
];
