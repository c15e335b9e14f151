package chat

// File tags: the buckets uploads go to.
const (
	TagAttachments = "attachments"
	TagAvatars     = "avatars"
	TagBackgrounds = "backgrounds"
	TagIcons       = "icons"
	TagBanners     = "banners"
	TagEmojis      = "emojis"
)

// Metadata types: what a file is.
const (
	MetadataFile  = "File"
	MetadataText  = "Text"
	MetadataImage = "Image"
	MetadataVideo = "Video"
	MetadataAudio = "Audio"
)

// Metadata describes what a file is: {"type":"Image","width":..,"height":..}
// and so on. Width and Height apply to Image and Video only.
type Metadata struct {
	Type   string `json:"type"` // File, Text, Image, Video, Audio
	Width  *int   `json:"width,omitempty"`
	Height *int   `json:"height,omitempty"`
}

// File is an uploaded file.
type File struct {
	ID          string   `json:"_id"`
	Tag         string   `json:"tag"`
	Filename    string   `json:"filename"`
	Metadata    Metadata `json:"metadata"`
	ContentType string   `json:"content_type"`
	Size        int64    `json:"size"`
	Deleted     *bool    `json:"deleted,omitempty"`
	Reported    *bool    `json:"reported,omitempty"`
	MessageID   *ID      `json:"message_id,omitempty"`
	UserID      *ID      `json:"user_id,omitempty"`
	ServerID    *ID      `json:"server_id,omitempty"`
	ObjectID    *ID      `json:"object_id,omitempty"`
}

// FileRecord is a stored upload: the File plus bookkeeping that never
// reaches a client.
type FileRecord struct {
	File
	Hash       string `json:"hash"` // SHA-256 of the stored bytes, hex; the blob key
	UploaderID ID     `json:"uploader_id"`
	UploadedAt Time   `json:"uploaded_at"`
	UsedFor    string `json:"used_for,omitempty"` // what consumed it, e.g. "message"; empty while unused
}
