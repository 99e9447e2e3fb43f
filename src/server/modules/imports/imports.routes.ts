// Moving in (ROLE_ADMIN): the templates of the three kinds (with the instance's data on
// ?donnees=1), the import of a file (a dry run unless mode=import) and the progress of a long
// import, which the screen polls with the id it chose.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema } from '../../../shared/errors.js';
import {
  IMPORT_MAX_BYTES,
  IMPORT_MESSAGES,
  importKindParamsSchema,
  importProgressParamsSchema,
  importProgressSchema,
  importQuerySchema,
  importReportSchema,
  importTemplateQuerySchema,
  type ImportProgress,
} from '../../../shared/schemas/imports.js';
import { HttpError, NotFoundError } from '../../errors.js';
import { sendCsvBody } from '../../csv.js';
import { createImportsService } from './imports.service.js';
import { templateCsv } from './import-templates.js';

/** How long the progress of a finished import can still be read. */
const PROGRESS_KEEP_MS = 60_000;

async function readFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw new HttpError(400, IMPORT_MESSAGES.notMultipart);
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 0, parts: 1, headerPairs: 20 } })) {
      if (part.type === 'file' && part.fieldname === 'fichier') file = await part.toBuffer();
      else throw new HttpError(400, IMPORT_MESSAGES.noFile);
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new HttpError(400, IMPORT_MESSAGES.tooLarge);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new HttpError(400, IMPORT_MESSAGES.noFile);
    throw new HttpError(400, 'Requête invalide.');
  }
  if (!file) throw new HttpError(400, IMPORT_MESSAGES.noFile);
  return file;
}

export default async function importsRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createImportsService(deps, fastify.log);
  const guard = app.guard('data.import');
  const progress = new Map<string, ImportProgress>();
  await app.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 0, parts: 1 } });

  app.get(
    '/admin/import/:kind/modele',
    {
      onRequest: guard,
      schema: {
        params: importKindParamsSchema,
        querystring: importTemplateQuerySchema,
        response: { 200: z.string().meta({ description: 'Modèle CSV (UTF-8 avec BOM, « ; ») : en-têtes et une ligne d’exemple, ou les données de l’instance avec donnees=1' }) },
      },
    },
    async (request, reply) => {
      const { kind } = request.params;
      const withData = request.query.donnees === '1';
      return sendCsvBody(reply, `${withData ? 'donnees' : 'modele'}-${kind}.csv`, await templateCsv(deps.db, kind, withData));
    },
  );

  app.post(
    '/admin/import/:kind',
    {
      onRequest: guard,
      // The file is read by the handler (multipart), within the limits above.
      schema: { params: importKindParamsSchema, querystring: importQuerySchema, response: { 200: importReportSchema, 400: errorBodySchema } },
    },
    async (request) => {
      const user = request.user!;
      const { mode, suivi, envoyerInvitation } = request.query;
      const key = suivi ? `${user.id}:${suivi}` : null;
      const track = (p: ImportProgress) => key && progress.set(key, p);
      try {
        const file = await readFile(request);
        return await service.run(request.params.kind, file, { mode, user, invite: envoyerInvitation === '1', onProgress: track });
      } finally {
        if (key) {
          track({ phase: 'termine', fait: progress.get(key)?.total ?? 0, total: progress.get(key)?.total ?? 0 });
          setTimeout(() => progress.delete(key), PROGRESS_KEEP_MS).unref();
        }
      }
    },
  );

  app.get(
    '/admin/import/progression/:suivi',
    { onRequest: guard, schema: { params: importProgressParamsSchema, response: { 200: importProgressSchema, 404: errorBodySchema } } },
    async (request) => {
      const p = progress.get(`${request.user!.id}:${request.params.suivi}`);
      if (!p) throw new NotFoundError('Aucun import en cours sous cet identifiant.');
      return p;
    },
  );
}
