import { createReadStream } from 'node:fs';
import { In, IsNull, MoreThan, Not } from 'typeorm';
import { Attachment } from '../files/attachment.entity';
import { fileStoreFor, isStoreKey, LocalFileStore } from '../storage';
import { CliError, CliOutput, CliSession, println } from './common';
import { progress } from './progress';

export interface FilesMigrateResult {
  /** Attachments with stored bytes that were looked at. */
  total: number;
  copied: number;
  /** Already in the bucket with the same size (an earlier run, or uploaded there). */
  present: number;
  /** Neither in the bucket nor under FILES_DIR: nothing to copy (listed by id). */
  missing: number;
}

const BATCH = 200;
const PARALLEL = 4;

/**
 * `files migrate`: copies the bytes of every stored file from FILES_DIR into the configured bucket,
 * under the same keys (the rows keep theirs), so a deployment can switch FILES_STORAGE from local to
 * s3. Idempotent: a key already in the bucket with the local size is left alone, so it can be re-run
 * (e.g. once more right before the switch, for files uploaded meanwhile).
 */
export async function migrateFiles(session: CliSession, out: CliOutput, err: CliOutput = out): Promise<FilesMigrateResult> {
  const { config } = session;
  if (config.FILES_STORAGE !== 's3') {
    throw new CliError('files migrate: set FILES_STORAGE=s3 and the S3_* settings of the bucket to copy into; the files are read from FILES_DIR.');
  }
  const source = new LocalFileStore(config.FILES_DIR);
  const target = fileStoreFor(config);
  const result: FilesMigrateResult = { total: 0, copied: 0, present: 0, missing: 0 };
  const repo = session.app.ds.getRepository(Attachment);

  const migrateOne = async (att: Attachment): Promise<void> => {
    const key = att.storageKey!;
    if (!isStoreKey(key)) {
      result.missing++;
      println(err, `  attachment ${att.id}: unexpected storage key, skipped`);
      return;
    }
    const [localSize, bucketSize] = await Promise.all([source.sizeOf(key), target.sizeOf(key)]);
    if (localSize == null) {
      if (bucketSize != null) result.present++;
      else {
        result.missing++;
        println(err, `  attachment ${att.id}: no bytes under FILES_DIR or in the bucket`);
      }
      return;
    }
    if (bucketSize === localSize) {
      result.present++;
      return;
    }
    await target.put(key, createReadStream(source.pathOf(key)), { size: localSize, contentType: att.contentType });
    result.copied++;
  };

  const stored = { workflowState: In(['uploaded', 'available']), storageKey: Not(IsNull()) };
  const bar = progress(out, 'Copying files:');
  const expected = await repo.countBy(stored);
  let after = 0;
  for (;;) {
    const rows = await repo.find({
      where: { id: MoreThan(after), workflowState: In(['uploaded', 'available']) },
      order: { id: 'ASC' },
      take: BATCH,
      select: { id: true, storageKey: true, contentType: true },
    });
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
    const withBytes = rows.filter((r) => r.storageKey);
    result.total += withBytes.length;
    for (let i = 0; i < withBytes.length; i += PARALLEL) {
      await Promise.all(withBytes.slice(i, i + PARALLEL).map(migrateOne));
      bar.update(result.copied + result.present + result.missing, Math.max(expected, result.total));
    }
  }
  bar.end();

  const where = `s3://${config.S3_BUCKET}/${config.S3_PREFIX}`;
  println(out, `Files: ${result.total} stored; copied ${result.copied} to ${where}, ${result.present} already there, ${result.missing} missing.`);
  return result;
}
