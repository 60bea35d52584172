import type { ForgeHttp } from '../../core/http.ts';
import type { ForgeSource } from '../../core/measurer.ts';
import type { ForgeRequest } from '../../../types.ts';
export const GITLAB_LABEL = 'GitLab API';
export function gitlabSource(_http: ForgeHttp, _request: ForgeRequest): ForgeSource {
  throw new Error('not yet');
}
