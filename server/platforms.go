package server

import (
	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/platform"
)

// platformsResponse is GET /api/platforms: engine/platform's table as the
// page needs it, so the page lists no platform of its own.
type platformsResponse struct {
	Default   string              `json:"default"`
	Platforms []platform.Platform `json:"platforms"`
}

// getPlatforms answers GET /api/platforms: every platform (name, PyPTO
// names, AIV cores, cost-model constants), the default first and named.
func (s *Server) getPlatforms(c *fiber.Ctx) error {
	return c.JSON(platformsResponse{Default: platform.Default(), Platforms: platform.All()})
}
