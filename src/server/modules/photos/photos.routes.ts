// Photos of field entries: the upload of one photo of an intervention (multipart, one request
// per photo, idempotent by the photo's client id) and the reading of a photo or its thumbnail.
// Multipart is registered here only: no other route accepts it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { errorBodySchema, type FieldError } from '../../../shared/errors.js';
import { idParamsSchema } from '../../../shared/schemas/common.js';
import { PHOTO_MESSAGES, photoAddResponseSchema, photoClientIdSchema, photoQuerySchema, type PhotoSize } from '../../../shared/schemas/photos.js';
import { HttpError, ValidationError } from '../../errors.js';
import { MAX_PHOTO_BYTES } from './photo-image.js';
import { createPhotosService, photoEtag } from './photos.service.js';

/** The image is sent as it is stored: described for the API documentation only. */
const imageAnswer = z.string().meta({ description: 'Image JPEG sans métadonnées : miniature (320 px au plus) ou complète (1600 px au plus)' });

/** Room for the multipart envelope and the clientId field around the image. */
const ENVELOPE_BYTES = 64 * 1024;

interface Upload {
  clientId: string | undefined;
  photo: Buffer | undefined;
}

/** The clientId field and the photo file of the upload; multipart refusals as French 4xx. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) throw new HttpError(415, PHOTO_MESSAGES.notMultipart);
  const declared = Number(request.headers['content-length']);
  // Said too large up front: refused before a byte of it is read.
  if (Number.isFinite(declared) && declared > MAX_PHOTO_BYTES + ENVELOPE_BYTES) throw new HttpError(413, PHOTO_MESSAGES.tooLarge);
  const upload: Upload = { clientId: undefined, photo: undefined };
  try {
    const parts = request.parts({ limits: { fileSize: MAX_PHOTO_BYTES, files: 1, fields: 1, parts: 2, fieldSize: 100, fieldNameSize: 20, headerPairs: 10 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.fieldname !== 'clientId') throw new HttpError(400, PHOTO_MESSAGES.tooManyParts);
        upload.clientId = typeof part.value === 'string' ? part.value : undefined;
      } else {
        if (part.fieldname !== 'photo') throw new HttpError(400, PHOTO_MESSAGES.tooManyParts);
        upload.photo = await part.toBuffer();
      }
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new HttpError(413, PHOTO_MESSAGES.tooLarge);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new HttpError(400, PHOTO_MESSAGES.tooManyParts);
    // A malformed or cut multipart body.
    throw new HttpError(400, 'Requête invalide.');
  }
  return upload;
}

/** Whether If-None-Match names this ETag ('*', a list, weak or strong). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export default async function photosRoutes(fastify: FastifyInstance, deps: AppDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createPhotosService(deps.db);
  // The limits are given again by each call to parts(); these are the plugin's defaults.
  await app.register(multipart, { limits: { fileSize: MAX_PHOTO_BYTES, files: 1, fields: 1, parts: 2 } });

  app.post(
    '/admin/intervention/:id/photo',
    {
      onRequest: app.guard('intervention.add'),
      schema: { params: idParamsSchema, response: { 200: photoAddResponseSchema, 409: errorBodySchema } },
    },
    async (request) => {
      const user = request.user!;
      const interventionId = request.params.id;
      // Before the upload is read: a caller without the right never costs an image.
      await service.checkCanAdd(user, interventionId);
      const upload = await readUpload(request);
      const errors: FieldError[] = [];
      const clientId = photoClientIdSchema.safeParse(upload.clientId);
      if (!clientId.success) errors.push({ key: 'clientId', error: PHOTO_MESSAGES.clientIdInvalid });
      if (!upload.photo || upload.photo.length === 0) errors.push({ key: 'photo', error: PHOTO_MESSAGES.missingPhoto });
      if (errors.length > 0 || !clientId.success || !upload.photo) throw new ValidationError(errors);
      return service.add(user, interventionId, clientId.data, upload.photo);
    },
  );

  app.get(
    '/admin/photo/:id',
    {
      onRequest: app.guard('intervention.list', 'request.manage', 'intervention.add'),
      schema: { params: idParamsSchema, querystring: photoQuerySchema, response: { 200: imageAnswer } },
    },
    async (request, reply) => {
      const photo = await service.describeForRead(request.user!, request.params.id);
      const size = request.query.taille;
      const etag = photoEtag(photo.empreinte, size);
      if (matches(request.headers['if-none-match'], etag)) return sendImage(reply, etag, null);
      return sendImage(reply, etag, { id: photo.id, size, bytes: await service.bytes(photo.id, size) });
    },
  );
}

/** The image, or a 304 when the browser holds it already. */
function sendImage(reply: FastifyReply, etag: string, image: { id: number; size: PhotoSize; bytes: Buffer } | null) {
  // Kept by the browser of this user only, and asked again each time: the server checks the
  // rights on every view, and a 304 spares the bytes.
  reply.header('cache-control', 'private, no-cache').header('etag', etag);
  if (!image) return reply.code(304).send();
  return reply
    .type('image/jpeg')
    .header('content-disposition', `inline; filename="photo-${image.id}${image.size === 'miniature' ? '-miniature' : ''}.jpg"`)
    .send(image.bytes);
}
