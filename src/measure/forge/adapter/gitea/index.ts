import type { ForgeHttp } from '../../core/http.ts';
import type { ForgeSource } from '../../core/measurer.ts';
import type { ForgeRequest } from '../../../types.ts';
export const GITEA_LABEL = 'Forgejo/Gitea API';
export function giteaSource(_http: ForgeHttp, _request: ForgeRequest): ForgeSource {
  throw new Error('not yet');
}
