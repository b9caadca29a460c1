"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('image',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('file_name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=True),
    sa.Column('original_label', sa.Integer(), nullable=True),
    sa.Column('problematic', sa.Boolean(), nullable=False),
    sa.Column('val_index', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('image', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_image_file_name'), ['file_name'], unique=True)
        batch_op.create_index(batch_op.f('ix_image_original_label'), ['original_label'], unique=False)
        batch_op.create_index(batch_op.f('ix_image_val_index'), ['val_index'], unique=False)

    op.create_table('label_source',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('imported_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('model',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('checkpoint', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=True),
    sa.Column('weights_sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('project_setting',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('value', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('reviewer',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('is_chair', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('decision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('predicted', sa.Integer(), nullable=False),
    sa.Column('verdict', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
    sa.Column('problematic', sa.Boolean(), nullable=False),
    sa.Column('severity', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
    sa.Column('category', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
    sa.Column('oov_name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
    sa.Column('method', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('decided_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['decided_by'], ['reviewer.id'], ),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('decision', schema=None) as batch_op:
        batch_op.create_index('ix_decision_item', ['image_id', 'predicted'], unique=False)

    op.create_table('discussion_note',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('predicted', sa.Integer(), nullable=False),
    sa.Column('reviewer_id', sa.Integer(), nullable=False),
    sa.Column('text', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['reviewer_id'], ['reviewer.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('discussion_note', schema=None) as batch_op:
        batch_op.create_index('ix_note_item', ['image_id', 'predicted'], unique=False)

    op.create_table('image_slice',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', 'image_id', name='uq_slice_image')
    )
    with op.batch_alter_table('image_slice', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_image_slice_name'), ['name'], unique=False)

    op.create_table('imported_review',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('model_id', sa.Integer(), nullable=False),
    sa.Column('path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('imported_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['model_id'], ['model.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('imported_review', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_imported_review_model_id'), ['model_id'], unique=False)

    op.create_table('label',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('label_set', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('class_index', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['label_source.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('label_set', 'image_id', 'class_index', name='uq_label_set_image_class')
    )
    with op.batch_alter_table('label', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_label_image_id'), ['image_id'], unique=False)

    op.create_table('problematic_mark',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['label_source.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('problematic_mark', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_problematic_mark_image_id'), ['image_id'], unique=False)

    op.create_table('run',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('model_id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('image_slice', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('num_images', sa.Integer(), nullable=False),
    sa.Column('device', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('preprocessing', sa.JSON(), nullable=False),
    sa.Column('report', sa.JSON(), nullable=False),
    sa.Column('probs_path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['model_id'], ['model.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_run_model_id'), ['model_id'], unique=False)

    op.create_table('vote',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('predicted', sa.Integer(), nullable=False),
    sa.Column('reviewer_id', sa.Integer(), nullable=False),
    sa.Column('verdict', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True),
    sa.Column('problematic', sa.Boolean(), nullable=False),
    sa.Column('severity', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
    sa.Column('category', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
    sa.Column('oov_name', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('retracted', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['reviewer_id'], ['reviewer.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('vote', schema=None) as batch_op:
        batch_op.create_index('ix_vote_item', ['image_id', 'predicted', 'reviewer_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_vote_reviewer_id'), ['reviewer_id'], unique=False)

    op.create_table('imported_review_item',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('review_id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('predicted', sa.Integer(), nullable=False),
    sa.Column('category', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('severity', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('category_raw', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('severity_raw', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['review_id'], ['imported_review.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('imported_review_item', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_imported_review_item_image_id'), ['image_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_imported_review_item_review_id'), ['review_id'], unique=False)

    op.create_table('mistake',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('predicted', sa.Integer(), nullable=False),
    sa.Column('probability', sa.Float(), nullable=False),
    sa.Column('novel', sa.Boolean(), nullable=False),
    sa.Column('hierarchy_distance', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'image_id', name='uq_mistake_run_image')
    )
    with op.batch_alter_table('mistake', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mistake_image_id'), ['image_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_mistake_run_id'), ['run_id'], unique=False)

    op.create_table('prediction',
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('image_id', sa.Integer(), nullable=False),
    sa.Column('row', sa.Integer(), nullable=False),
    sa.Column('pred_1', sa.Integer(), nullable=False),
    sa.Column('pred_2', sa.Integer(), nullable=False),
    sa.Column('pred_3', sa.Integer(), nullable=False),
    sa.Column('pred_4', sa.Integer(), nullable=False),
    sa.Column('pred_5', sa.Integer(), nullable=False),
    sa.Column('prob_1', sa.Float(), nullable=False),
    sa.Column('prob_2', sa.Float(), nullable=False),
    sa.Column('prob_3', sa.Float(), nullable=False),
    sa.Column('prob_4', sa.Float(), nullable=False),
    sa.Column('prob_5', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['image_id'], ['image.id'], ),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ),
    sa.PrimaryKeyConstraint('run_id', 'image_id')
    )
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_prediction_image_id'), ['image_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_prediction_image_id'))

    op.drop_table('prediction')
    with op.batch_alter_table('mistake', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mistake_run_id'))
        batch_op.drop_index(batch_op.f('ix_mistake_image_id'))

    op.drop_table('mistake')
    with op.batch_alter_table('imported_review_item', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_imported_review_item_review_id'))
        batch_op.drop_index(batch_op.f('ix_imported_review_item_image_id'))

    op.drop_table('imported_review_item')
    with op.batch_alter_table('vote', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_vote_reviewer_id'))
        batch_op.drop_index('ix_vote_item')

    op.drop_table('vote')
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_run_model_id'))

    op.drop_table('run')
    with op.batch_alter_table('problematic_mark', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_problematic_mark_image_id'))

    op.drop_table('problematic_mark')
    with op.batch_alter_table('label', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_label_image_id'))

    op.drop_table('label')
    with op.batch_alter_table('imported_review', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_imported_review_model_id'))

    op.drop_table('imported_review')
    with op.batch_alter_table('image_slice', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_image_slice_name'))

    op.drop_table('image_slice')
    with op.batch_alter_table('discussion_note', schema=None) as batch_op:
        batch_op.drop_index('ix_note_item')

    op.drop_table('discussion_note')
    with op.batch_alter_table('decision', schema=None) as batch_op:
        batch_op.drop_index('ix_decision_item')

    op.drop_table('decision')
    op.drop_table('reviewer')
    op.drop_table('project_setting')
    op.drop_table('model')
    op.drop_table('label_source')
    with op.batch_alter_table('image', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_image_val_index'))
        batch_op.drop_index(batch_op.f('ix_image_original_label'))
        batch_op.drop_index(batch_op.f('ix_image_file_name'))

    op.drop_table('image')
